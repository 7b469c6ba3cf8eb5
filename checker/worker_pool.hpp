// A persistent pool of search threads: created once per search, not per
// chunk, so handing out a chunk costs a wake-up, not a thread start. The
// caller is worker 0; run() returns when every worker is done, and
// rethrows the first exception a worker threw (a protocol's logic_error
// must end the run, not the process).
//
// A search calls run() several times per chunk of 8192 states, so a wake-up
// through the condition variable (tens of microseconds on a virtual machine,
// for each of 16 threads) would cost more than the chunk's merge. Idle
// workers and the waiting caller therefore spin a while (200 us) before they
// sleep, so that between the phases of a chunk nobody sleeps. (Spinning for
// 2 ms, longer than the tail of a round's expansion, measured the same wall
// time on 16 cores, for 7% more CPU time.) A pool left idle (a search that
// ended) still costs nothing, and a pool of more threads than the machine
// has cores never spins: there a spinning thread would only take a core
// from one with work.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kmc::checker {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return size_; }
  // Calls fn(t) once for every t in [0, size()), in parallel.
  void run(const std::function<void(int)>& fn);

 private:
  void loop(int t);
  void call(int t);

  int size_;
  std::vector<std::thread> threads_;
  std::chrono::microseconds spin_;

  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};  // written under mu_, read while spinning
  std::atomic<int> running_{0};
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
};

}  // namespace kmc::checker
