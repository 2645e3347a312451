# The GPU parts build only where nvcc is found (DESIGN.md principle 6); everything else configures, builds
# and tests the same without it. Sets PERFHOUND_HAVE_CUDA.
set(PERFHOUND_HAVE_CUDA OFF)
if(PERFHOUND_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  # A compiler named on the command line that does not exist (-DCMAKE_CUDA_COMPILER=/nonexistent) means no CUDA.
  if(CMAKE_CUDA_COMPILER AND (NOT IS_ABSOLUTE "${CMAKE_CUDA_COMPILER}" OR EXISTS "${CMAKE_CUDA_COMPILER}"))
    # sm_90 SASS plus compute_90 PTX: Hopper runs the SASS, never a JIT of the PTX.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(PERFHOUND_HAVE_CUDA ON)
    message(STATUS "perfhound: CUDA ${CMAKE_CUDA_COMPILER_VERSION} (${CMAKE_CUDA_COMPILER}), architectures ${CMAKE_CUDA_ARCHITECTURES}")
  else()
    message(STATUS "perfhound: nvcc not found; perfhound probe will say it was built without CUDA")
  endif()
endif()
