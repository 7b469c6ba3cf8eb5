#include "checker/worker_pool.hpp"

#include <algorithm>
#include <utility>

namespace kmc::checker {

namespace {

// Tells the core that this thread is waiting (it then yields resources to
// its sibling hyperthread, and saves power).
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() holds or `limit` has passed; true when done() holds.
template <class Done>
bool spin(Done done, std::chrono::microseconds limit) {
  if (limit.count() == 0) return done();
  const auto until = std::chrono::steady_clock::now() + limit;
  for (int i = 0;; ++i) {
    if (done()) return true;
    relax();
    // The clock costs more than a pause: read it once every 64.
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return done();
  }
}

}  // namespace

WorkerPool::WorkerPool(int threads)
    : size_(std::max(1, threads)),
      spin_(static_cast<unsigned>(size_) <= std::thread::hardware_concurrency() ? 200 : 0) {
  for (int t = 1; t < size_; ++t) threads_.emplace_back([this, t] { loop(t); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& th : threads_) th.join();
}

void WorkerPool::call(int t) {
  try {
    (*job_)(t);
  } catch (...) {
    std::lock_guard lock(mu_);
    if (!error_) error_ = std::current_exception();
  }
}

void WorkerPool::run(const std::function<void(int)>& fn) {
  if (size_ == 1) return fn(0);
  {
    std::lock_guard lock(mu_);
    job_ = &fn;
    running_.store(size_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  call(0);
  const auto finished = [&] { return running_.load(std::memory_order_acquire) == 0; };
  if (!spin(finished, spin_)) {
    std::unique_lock lock(mu_);
    done_.wait(lock, finished);
  }
  std::lock_guard lock(mu_);
  job_ = nullptr;
  if (auto e = std::exchange(error_, nullptr)) std::rethrow_exception(e);
}

void WorkerPool::loop(int t) {
  std::uint64_t seen = 0;
  for (;;) {
    const auto started = [&] {
      return stop_.load(std::memory_order_acquire) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin(started, spin_)) {
      std::unique_lock lock(mu_);
      start_.wait(lock, started);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    call(t);
    // The last worker out wakes the caller, under the lock so that a caller
    // about to sleep cannot miss it.
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mu_);
      done_.notify_one();
    }
  }
}

}  // namespace kmc::checker
