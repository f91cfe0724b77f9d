/* anycuda-codegen shim: curand.h's host declarations need only cudaStream_t and
   libraryPropertyType, which cuda_runtime_api.h and library_types.h declare. */
#include <cuda_runtime_api.h>
#include <library_types.h>
