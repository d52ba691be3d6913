/* MDL_HD: marks physics helpers callable from both host C and CUDA device code. */
#ifndef MDL_HD_H
#define MDL_HD_H
#ifdef __CUDACC__
#define MDL_HD __host__ __device__
#else
#define MDL_HD __attribute__((always_inline))
#endif
#endif
