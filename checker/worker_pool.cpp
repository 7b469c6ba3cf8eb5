#include "checker/worker_pool.hpp"

#include <algorithm>
#include <utility>

namespace kmc::checker {

WorkerPool::WorkerPool(int threads) : size_(std::max(1, threads)) {
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
    running_ = size_ - 1;
    ++generation_;
  }
  start_.notify_all();
  call(0);
  std::unique_lock lock(mu_);
  done_.wait(lock, [&] { return running_ == 0; });
  job_ = nullptr;
  if (auto e = std::exchange(error_, nullptr)) std::rethrow_exception(e);
}

void WorkerPool::loop(int t) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    call(t);
    {
      std::lock_guard lock(mu_);
      if (--running_ == 0) done_.notify_one();
    }
  }
}

}  // namespace kmc::checker
