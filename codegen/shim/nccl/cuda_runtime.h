/* anycuda-codegen shim: nccl.h needs only the runtime API's types (cudaStream_t), not the
 * device-side headers cuda_runtime.h pulls in. */
#include <cuda_runtime_api.h>
