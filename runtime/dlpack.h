/* runtime/dlpack.h — the DLPack tensor ABI (dmlc/dlpack v0.8 layout), which is
 * how tensors cross kgen's C ABI: borrowed DLTensor views (pointer, dtype, shape,
 * strides in elements). Declared here so kgen needs no extra package; the layout
 * is the standard one, so TorchSharp / PyTorch DLPack exports can be passed as is. */
#ifndef KG_DLPACK_H
#define KG_DLPACK_H
#ifndef DLPACK_VERSION
#include <stdint.h>

#define DLPACK_VERSION 80

typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;   /* DLDataTypeCode */
  uint8_t bits;
  uint16_t lanes; /* 1 */
} DLDataType;

typedef struct {
  void *data;        /* device pointer (CUDA) or host pointer (CPU / emulator) */
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;  /* in elements; NULL = C-contiguous */
  uint64_t byte_offset;
} DLTensor;
#endif
#endif
