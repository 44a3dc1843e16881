#pragma once
// Functions for host and device alike: __host__ __device__ under nvcc, inline elsewhere.
#if defined(__CUDACC__)
#define MLFMA2D_HD __host__ __device__ __forceinline__
#else
#define MLFMA2D_HD inline
#endif
