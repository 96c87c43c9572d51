/* Included first by polypragma's parser (never by a real compile): GCC's and Clang's extended types as
   typedefs, so that pycparser, which knows none of them, parses files that use them.  The frontend
   recognises these names (symbols.EXTENDED_TYPES) and does not look through the typedefs. */
#ifndef POLYPRAGMA_TYPES_H
#define POLYPRAGMA_TYPES_H
typedef float _Float16;
typedef float _Float32;
typedef double _Float64;
typedef double _Float32x;
typedef long double _Float64x;
typedef long double _Float128;
typedef long double __float128;
typedef long double __float80;
typedef float __fp16;
typedef float __bf16;
typedef unsigned long __uint128_t;
typedef long __int128_t;
#endif
