/* anycuda-codegen shim: rccl.h's declarations need only size_t and hipStream_t from HIP. */
#include <stddef.h>
typedef struct ihipStream_t* hipStream_t;
