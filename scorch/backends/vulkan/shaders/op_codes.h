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

// The float elementwise ops with a glsl attribute in op_table.txt: codes 1..127 and their map.comp cases.
#include "scorch/gen/vulkan_map_ops.h"

// The hand-kept codes: copy, and the ops map.comp writes out itself (division and remainder, whose integer forms
// need care; min/max; tests, logic and bitwise ops; comparisons, last: OP_EQ..OP_LE is one range).
#define OP_COPY 0
#define OP_DIV 128
#define OP_REM 129
#define OP_MIN 130
#define OP_MAX 131
#define OP_IS_NAN 132
#define OP_IS_INF 133
#define OP_BIT_NOT 134
#define OP_LOGICAL_NOT 135
#define OP_BIT_AND 136
#define OP_BIT_OR 137
#define OP_BIT_XOR 138
#define OP_SHL 139
#define OP_SHR 140
#define OP_LOGICAL_AND 141
#define OP_LOGICAL_OR 142
#define OP_LOGICAL_XOR 143
// Comparisons (bool out).
#define OP_EQ 144
#define OP_NE 145
#define OP_GT 146
#define OP_GE 147
#define OP_LT 148
#define OP_LE 149
// Reductions (reduce.comp).
#define RED_SUM 0
#define RED_PROD 1
#define RED_MAX 2
#define RED_MIN 3
#define RED_ARGMAX 4
#define RED_ARGMIN 5
#define RED_MEAN 6

#endif
