#pragma once
/* anycuda-codegen shim: hipBLASLt's C API uses no complex type. */
