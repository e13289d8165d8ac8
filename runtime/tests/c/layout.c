/* Prints the layout of the C ABI's structs as the C compiler sees it, for tests/ffi.rs to
 * compare with Rust's #[repr(C)] mirrors. */
#include <stddef.h>
#include <stdio.h>
#include "turbine_dsa.h"

int main(void) {
  printf("td_core %zu %zu %zu\n", sizeof(td_core), offsetof(td_core, cluster), offsetof(td_core, core));
  printf("td_view %zu %zu %zu %zu %zu %zu\n", sizeof(td_view), offsetof(td_view, buffer),
         offsetof(td_view, offset), offsetof(td_view, rank), offsetof(td_view, shape),
         offsetof(td_view, strides));
  printf("td_conv2d_params %zu %zu %zu %zu %zu\n", sizeof(td_conv2d_params),
         offsetof(td_conv2d_params, stride), offsetof(td_conv2d_params, pad),
         offsetof(td_conv2d_params, dilation), offsetof(td_conv2d_params, groups));
  printf("td_pool2d_params %zu %zu %zu %zu %zu %zu\n", sizeof(td_pool2d_params),
         offsetof(td_pool2d_params, kind), offsetof(td_pool2d_params, count_include_pad),
         offsetof(td_pool2d_params, kernel), offsetof(td_pool2d_params, stride),
         offsetof(td_pool2d_params, pad));
  printf("td_model_buffer %zu %zu %zu %zu %zu %zu %zu %zu\n", sizeof(td_model_buffer),
         offsetof(td_model_buffer, role), offsetof(td_model_buffer, dtype),
         offsetof(td_model_buffer, index), offsetof(td_model_buffer, rank),
         offsetof(td_model_buffer, shape), offsetof(td_model_buffer, name),
         offsetof(td_model_buffer, data));
  printf("td_model_desc %zu %zu %zu %zu %zu\n", sizeof(td_model_desc),
         offsetof(td_model_desc, name), offsetof(td_model_desc, entry),
         offsetof(td_model_desc, n_buffers), offsetof(td_model_desc, buffers));
  return 0;
}
