// The op codes of the Vulkan backend's elementwise and reduction shaders: one list read by the GLSL shaders and by
// the C++ kernels that pick a pipeline (preprocessor defines only, valid in both languages).
#ifndef SCORCH_VULKAN_OP_CODES_H
#define SCORCH_VULKAN_OP_CODES_H

// Elementwise forms (map.comp's FORM): which operands an op reads.
#define FORM_UNARY 0        // out = f(a)
#define FORM_BINARY 1       // out = f(a, b), broadcast
#define FORM_SCALAR 2       // out = f(a, s)
#define FORM_WHERE 3        // out = c ? b : a  (mask_where: a tensor, c mask, b values)
#define FORM_FILL 4         // out = s
#define FORM_MASK_FILL 5    // out = c ? s : a

// Compute kinds (map.comp's KIND): the domain values are combined in.
#define KIND_FLOAT 0
#define KIND_INT 1

// Unary float ops.
#define OP_COPY 0
#define OP_EXP 1
#define OP_LOG 2
#define OP_LOG1P 3
#define OP_LOGIT 4
#define OP_SQRT 5
#define OP_ABS 6
#define OP_COS 7
#define OP_SIN 8
#define OP_TAN 9
#define OP_COSH 10
#define OP_SINH 11
#define OP_TANH 12
#define OP_ACOS 13
#define OP_ACOSH 14
#define OP_ASIN 15
#define OP_ASINH 16
#define OP_ATAN 17
#define OP_ATANH 18
#define OP_ROUND 19
#define OP_FLOOR 20
#define OP_CEIL 21
#define OP_TRUNC 22
#define OP_ERF 23
#define OP_RECIP 24
#define OP_RELU 25
#define OP_SIGMOID 26
#define OP_GELU 27
#define OP_LOG_SIGMOID 28
#define OP_NEG 29
#define OP_SIGN 30
#define OP_IS_NAN 31
#define OP_IS_INF 32
#define OP_BIT_NOT 33
#define OP_LOGICAL_NOT 34
// Binary ops (tensor or scalar right operand).
#define OP_ADD 40
#define OP_SUB 41
#define OP_MUL 42
#define OP_DIV 43
#define OP_REM 44
#define OP_POW 45
#define OP_ATAN2 46
#define OP_MIN 47
#define OP_MAX 48
#define OP_CLAMP_MIN 49
#define OP_CLAMP_MAX 50
#define OP_LEAKY_RELU 51
#define OP_BIT_AND 52
#define OP_BIT_OR 53
#define OP_BIT_XOR 54
#define OP_SHL 55
#define OP_SHR 56
#define OP_LOGICAL_AND 57
#define OP_LOGICAL_OR 58
#define OP_LOGICAL_XOR 59
// Comparisons (bool out).
#define OP_EQ 60
#define OP_NE 61
#define OP_GT 62
#define OP_GE 63
#define OP_LT 64
#define OP_LE 65
// Reductions (reduce.comp).
#define RED_SUM 0
#define RED_PROD 1
#define RED_MAX 2
#define RED_MIN 3
#define RED_ARGMAX 4
#define RED_ARGMIN 5
#define RED_MEAN 6

#endif
