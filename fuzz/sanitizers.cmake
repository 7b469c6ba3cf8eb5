# KMC_FUZZ: every library kmc links is compiled for libFuzzer (coverage
# feedback, no main of its own) under ASan and UBSan, so a harness in fuzz/
# sees memory errors and undefined behaviour anywhere below it, not only in
# its own file. -fno-sanitize-recover makes a UBSan report a crash that
# libFuzzer keeps as a finding; otherwise UBSan prints and carries on. Included
# from the top-level CMakeLists.txt before the libraries, since
# add_compile_options applies only to targets defined after it.
# Clang 16 at least: clang 14, Debian 12's default, cannot capture a structured
# binding in a lambda (C++20's P1091R3, counterexamples/itf_picks.cpp does);
# Debian 12 has clang-16 and libclang-rt-16-dev (its libFuzzer) as well.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
  message(FATAL_ERROR "KMC_FUZZ needs clang 16 or later (libFuzzer): -DCMAKE_CXX_COMPILER=clang++-16")
endif()
set(kmc_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=undefined)
add_compile_options(-fsanitize=fuzzer-no-link ${kmc_sanitizers} -fno-omit-frame-pointer)
add_link_options(${kmc_sanitizers})
