/* Runs the model of compile-loader.test (test/Translate): argv[1] the weights file, argv[2] the input's raw f32
 * bytes, argv[3] where to write the output's. */
#include <stdio.h>
#include "block.h"

int main(int argc, char **argv) {
  static float x[BLOCK_INPUT0_BYTES / 4], y[BLOCK_OUTPUT0_BYTES / 4];
  FILE *in = fopen(argv[2], "rb"), *out = fopen(argv[3], "wb");
  if (argc != 4 || !in || !out || fread(x, sizeof x, 1, in) != 1) return 2;
  uint64_t model;
  const void *inputs[] = {x};
  void *outputs[] = {y};
  int32_t status = block_create(argv[1], "mini", &model);
  if (status == 0) status = block_run(model, inputs, outputs);
  if (status != 0) {
    fprintf(stderr, "error %d: %s\n", status, block_error_message());
    return 1;
  }
  fwrite(y, sizeof y, 1, out);
  return block_destroy(model);
}
