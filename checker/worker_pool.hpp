// A persistent pool of search threads: created once per search, not per
// chunk, so handing out a chunk costs a wake-up, not a thread start. The
// caller is worker 0; run() returns when every worker is done, and
// rethrows the first exception a worker threw (a protocol's logic_error
// must end the run, not the process).
#pragma once

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
  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  std::uint64_t generation_ = 0;
  int running_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace kmc::checker
