/*
 * turbine_dsa.h - C ABI of the Turbine software DSA (crate turbine-runtime).
 *
 * The software DSA executes the `dsa` instruction set on real buffers and times it with a
 * deterministic performance model (docs/Runtime.md). Generated host code drives it as follows:
 *
 *   td_device_create("stcp920", &dev);                  // built-in target or a .toml path
 *   td_buffer_alloc(dev, TD_LEVEL_DDR, 0, 0, bytes, TD_DTYPE_F32, &in);
 *   td_buffer_write(dev, in, 0, host_data, bytes);     // inputs
 *   td_launch_begin(dev, "kernel0", cores, n_cores);   // record ...
 *   td_dma(dev, cl, co, &src, &dst, NULL, 0, &t0);     //   ... each core's instructions,
 *   td_matmul(dev, cl, co, &a, &b, &c, 0, &t0, 1, &t1);//   naming the core explicitly
 *   td_launch_end(dev, &cycles);                       // check, time, execute
 *   td_buffer_read(dev, out, 0, host_result, bytes);   // outputs
 *   td_report_write(dev, TD_REPORT_TEXT, "report.txt");
 *   td_device_destroy(dev);
 *
 * Conventions
 * - Every function returns td_status: TD_OK (0) or a TD_ERR_* category. On failure,
 *   td_last_error() returns a message naming the culprit (buffer, core, token, operand). The
 *   message is per thread and stays valid until the next failing call on that thread.
 * - The first failing call on a device is also kept (sticky) until td_device_take_error, so
 *   code that records many calls in loops may ignore each status and check once at the end.
 * - Handles (devices, buffers, tokens, models) are uint64_t ids, never pointers; 0 is never a
 *   valid handle. A stale or unknown handle is an error, not undefined behaviour.
 * - Nothing aborts or unwinds into C. The caller's only duty: every pointer argument is NULL
 *   or valid for the size the call states. Optional outputs (token_out, cycles_out, len_out)
 *   may be NULL.
 * - Offsets, shapes and strides of views are in elements (f32); host read/write offsets and
 *   sizes are in bytes (multiples of 4).
 * - Recording errors (bad operand, unknown token, ...) are returned by the recording call
 *   and also discard the launch: td_launch_end then fails with TD_ERR_INVALID_STATE, so a
 *   partial kernel never runs. A failed td_launch_end changes nothing on the device.
 * - Launches execute in the background, in order, as on a real device: td_launch_end returns
 *   once the launch is checked and timed. A fault met while executing (an index out of range,
 *   an integer division by zero) is returned by the next call that waits for execution:
 *   td_device_synchronize, td_buffer_read, td_buffer_write, td_read_scalar or
 *   td_write_scalar; later launches are skipped.
 * - A device may be used from several host threads; calls on one device are serialised.
 */
#ifndef TURBINE_DSA_H
#define TURBINE_DSA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t td_status;

/* Status codes. */
#define TD_OK 0
#define TD_ERR_INVALID_ARGUMENT 1 /* malformed argument or operand, unreachable buffer */
#define TD_ERR_UNKNOWN_HANDLE 2   /* unknown device, buffer, token or model; core not on target */
#define TD_ERR_OUT_OF_MEMORY 3    /* allocation beyond the capacity of its memory */
#define TD_ERR_OUT_OF_BOUNDS 4    /* access past the end of a buffer */
#define TD_ERR_INVALID_STATE 5    /* no launch open / already open / buffer in use / discarded */
#define TD_ERR_RACE 6             /* unordered conflicting accesses in a launch */
#define TD_ERR_TARGET 7           /* target description missing or invalid */
#define TD_ERR_IO 8               /* file could not be written, or a weights file not read */
#define TD_ERR_INTERNAL 9         /* runtime bug caught at the boundary */

/* Memory levels (td_buffer_alloc). */
#define TD_LEVEL_LB 0  /* local buffer of core (cluster, core) */
#define TD_LEVEL_GB 1  /* global buffer of cluster (core ignored) */
#define TD_LEVEL_DDR 2 /* DDR (cluster and core ignored); the only level the host reads/writes */

/* Element types of buffers (td_buffer_alloc). Compute instructions other than td_convert and
 * td_gather work on floats (f32, f16, bf16: computed in f32, rounded to the output's type on
 * store); td_dma copies between buffers of one type, or converts between float types. */
#define TD_DTYPE_F32 0
#define TD_DTYPE_I64 1
#define TD_DTYPE_I32 2
#define TD_DTYPE_I8 3
#define TD_DTYPE_U8 4
#define TD_DTYPE_BOOL 5 /* one byte, 0 or 1 */
#define TD_DTYPE_F16 6
#define TD_DTYPE_BF16 7

/* Binary element-wise ops (td_binary), numpy broadcasting. On the vector engine. */
#define TD_BINARY_ADD 0
#define TD_BINARY_SUB 1
#define TD_BINARY_MUL 2
#define TD_BINARY_DIV 3
#define TD_BINARY_MAX 4 /* NaN-propagating */
#define TD_BINARY_MIN 5 /* NaN-propagating */
#define TD_BINARY_POW 6
#define TD_BINARY_FMOD 7 /* remainder with the dividend's sign (C's fmod) */
#define TD_BINARY_MOD 8  /* remainder with the divisor's sign (Python's %) */

/* Comparisons (td_compare): IEEE for floats, every comparison with NaN false but NE. */
#define TD_COMPARE_EQ 0
#define TD_COMPARE_NE 1
#define TD_COMPARE_LT 2
#define TD_COMPARE_LE 3
#define TD_COMPARE_GT 4
#define TD_COMPARE_GE 5

/* Unary ops (td_unary). Vector engine unless marked (vector core). */
#define TD_UNARY_RELU 0       /* NaN and -0.0 stay */
#define TD_UNARY_SIGMOID 1
#define TD_UNARY_TANH 2
#define TD_UNARY_EXP 3        /* vector core */
#define TD_UNARY_LOG 4        /* vector core */
#define TD_UNARY_SQRT 5       /* vector core */
#define TD_UNARY_RSQRT 6      /* vector core */
#define TD_UNARY_ERF 7
#define TD_UNARY_GELU 8       /* exact (erf) form */
#define TD_UNARY_SILU 9
#define TD_UNARY_NEG 10
#define TD_UNARY_RECIPROCAL 11 /* vector core */
#define TD_UNARY_CLIP 12      /* p0 = min, p1 = max (not min > max; a NaN bound clips nothing) */
#define TD_UNARY_AFFINE 13    /* p0 * x + p1 */
#define TD_UNARY_ABS 14
#define TD_UNARY_GELU_TANH 15 /* tanh approximation */

/* Pooling kinds (td_pool2d_params.kind). On the vector core. */
#define TD_POOL_MAX 0
#define TD_POOL_AVG 1

/* Reductions (td_reduce), keepdims. On the vector core. */
#define TD_REDUCE_SUM 0
#define TD_REDUCE_MEAN 1
#define TD_REDUCE_MAX 2
#define TD_REDUCE_MIN 3
#define TD_REDUCE_PROD 4

/* Report formats. */
#define TD_REPORT_JSON 0
#define TD_REPORT_TEXT 1
#define TD_REPORT_TEXT_DETAIL 2

/* Trace formats of td_trace_write_format. */
#define TD_TRACE_JSON_LAYERS 0
#define TD_TRACE_JSON_INSTRUCTIONS 1
#define TD_TRACE_TIMELINE_SVG 2

/* A core: cluster index and core index within the cluster. */
typedef struct td_core {
  uint32_t cluster;
  uint32_t core;
} td_core;

/* A strided view of a buffer's f32 elements: element (i0,..,i{r-1}) is at
 * offset + sum(ik * strides[k]). Entries past rank are ignored. Stride 0 broadcasts. */
typedef struct td_view {
  uint64_t buffer;
  uint64_t offset;
  uint32_t rank; /* 1..4 */
  uint64_t shape[4];
  uint64_t strides[4];
} td_view;

/* Convolution tile parameters (ONNX conventions). */
typedef struct td_conv2d_params {
  uint64_t stride[2];   /* H, W; >= 1 */
  uint64_t pad[4];      /* top, left, bottom, right */
  uint64_t dilation[2]; /* H, W; >= 1 */
  uint64_t groups;      /* >= 1, divides C and O */
} td_conv2d_params;

/* Pooling parameters (ONNX conventions, floor rounding). */
typedef struct td_pool2d_params {
  uint32_t kind;              /* TD_POOL_* */
  uint32_t count_include_pad; /* avg: nonzero divides by the full window */
  uint64_t kernel[2];         /* H, W; >= 1 */
  uint64_t stride[2];         /* H, W; >= 1 */
  uint64_t pad[4];            /* top, left, bottom, right; each < kernel on its axis */
} td_pool2d_params;

/* ---- Errors ---------------------------------------------------------------------------- */

/* Message of the last failing call on this thread ("" if none). */
const char *td_last_error(void);

/* ---- Devices --------------------------------------------------------------------------- */

/* Creates a device from a built-in target name ("stcp920", "mini", "solo") or a target file
 * path (docs/Targets.md). */
td_status td_device_create(const char *target, uint64_t *device_out);
td_status td_device_destroy(uint64_t dev);
/* TD_OK if no call on `dev` failed since the device was created or since the last take;
 * otherwise the status of the FIRST failing call since then, with td_last_error() on this
 * thread set to its message prefixed by the function's name ("td_dma: ..."). Clears it. */
td_status td_device_take_error(uint64_t dev);
/* Host threads used to run cores concurrently (0: all the host has). Never changes results
 * or cycle counts, only wall time. */
td_status td_device_set_threads(uint64_t dev, uint32_t threads);
/* The race check of every launch: on (nonzero, the default) refuses a launch whose instructions
 * may touch the same elements at overlapping times with a write involved; off (zero) runs it
 * faster, its results then depending on the host's thread interleaving if it races. */
td_status td_device_set_race_check(uint64_t dev, int32_t on);
/* The iteration at which the device's watchdog (td_loop_check) stops a loop whose condition never
 * turns false (at least 1; 1048576 by default). */
td_status td_device_set_loop_limit(uint64_t dev, uint64_t limit);
/* Simulated cycles since the device was created. */
td_status td_device_cycles(uint64_t dev, uint64_t *cycles_out);

/* ---- Buffers --------------------------------------------------------------------------- */

/* Allocates a zero-filled buffer of `bytes` (a multiple of 4; 0 for an empty tensor) at `level`, owned by
 * core (cluster, core) for LB or cluster `cluster` for GB. Fails with TD_ERR_OUT_OF_MEMORY
 * when the memory's live buffers would exceed its capacity. */
td_status td_buffer_alloc(uint64_t dev, uint32_t level, uint32_t cluster, uint32_t core,
                          uint64_t bytes, uint32_t dtype, uint64_t *buffer_out);
/* Frees a buffer (refused while the open launch uses it). */
td_status td_buffer_free(uint64_t dev, uint64_t buffer);
/* Frees a buffer now, or, if the open launch uses it, when that launch ends (runs or is
 * discarded): what a kernel's dealloc needs, since its body is recorded inside the launch.
 * Until then the buffer still counts against its memory's capacity. */
td_status td_buffer_release(uint64_t dev, uint64_t buffer);
/* Host access to DDR buffers (not timed). Offsets and sizes in bytes, whole elements of the
 * buffer's type. */
td_status td_buffer_write(uint64_t dev, uint64_t buffer, uint64_t byte_offset, const void *src,
                          uint64_t bytes);
td_status td_buffer_read(uint64_t dev, uint64_t buffer, uint64_t byte_offset, void *dst,
                         uint64_t bytes);

/* ---- Launches -------------------------------------------------------------------------- */

/* Opens a launch of `kernel` on a set of cores. Then record each core's instructions with the
 * calls below (each names its core), and close with td_launch_end, which checks the whole
 * launch (equal barrier counts, no races), simulates its timing, queues it for execution and
 * stores its simulated cycles (start = end of previous launch + kernel-launch latency). */
td_status td_launch_begin(uint64_t dev, const char *kernel, const td_core *cores, uint64_t n_cores);
td_status td_launch_end(uint64_t dev, uint64_t *cycles_out);
/* Waits until every launch has executed; returns the first fault of their execution since the
 * last wait (naming the instruction, core, launch and layer), or TD_OK. */
td_status td_device_synchronize(uint64_t dev);

/* ---- Control flow between launches -------------------------------------------------------
 * Loops and branches over launches whose condition the device computes (docs/Runtime.md,
 * "Control flow between launches"). Outside a persistent region the host decides each
 * condition: td_read_scalar is a synchronisation (latency.readback cycles). Inside one, the
 * launches are steps of one persistent kernel that the device sequences: the first launch that
 * ends in the region pays latency.kernel_launch, each later one starts latency.barrier cycles
 * after the previous one ended (or the branch after it) and counts as a device step, and
 * td_read_scalar is the cores' own branch (latency.branch cycles). The region and scalar calls
 * are refused while a launch is being recorded (TD_ERR_INVALID_STATE). */

/* Opens a persistent region; one opened inside an open region is part of it. */
td_status td_persistent_begin(uint64_t dev);
/* Closes the innermost open persistent region (TD_ERR_INVALID_STATE if none is open). */
td_status td_persistent_end(uint64_t dev);
/* Waits for every launch to execute, then stores element `index` of `buffer` (any level; i64,
 * i32, i8, u8 or bool elements, widened) in *value_out. A float buffer is TD_ERR_INVALID_ARGUMENT,
 * an index past its elements TD_ERR_OUT_OF_BOUNDS. */
td_status td_read_scalar(uint64_t dev, uint64_t buffer, uint64_t index, int64_t *value_out);
/* Waits for every launch to execute, then writes `value` into element `index` of `buffer` (any
 * level; integer or bool elements; a value the element type cannot hold, a bool other than 0 or
 * 1, is TD_ERR_INVALID_ARGUMENT). Costs no simulated time. */
td_status td_write_scalar(uint64_t dev, uint64_t buffer, uint64_t index, int64_t value);
/* The device's watchdog on loops: TD_ERR_INVALID_STATE once `iteration` (0 for a loop's first)
 * reaches the device's loop limit (td_device_set_loop_limit; 1048576 iterations by default).
 * The error names the loop by `layer`, an id of td_layer_names (UINT32_MAX: none). Costs no
 * simulated time. */
td_status td_loop_check(uint64_t dev, uint64_t iteration, uint32_t layer);
/* Enters a call that may recurse: TD_ERR_INVALID_STATE, naming the call by `layer` (an id of
 * td_layer_names; UINT32_MAX: none), when the target's core.call_depth calls are running
 * already. A call it allows ends with td_frame_pop. Costs no simulated time. */
td_status td_frame_push(uint64_t dev, uint32_t layer);
/* Leaves the call the last td_frame_push entered (TD_ERR_INVALID_STATE if none is running). */
td_status td_frame_pop(uint64_t dev);

/* ---- Instructions ------------------------------------------------------------------------
 * Each records one instruction on core (cluster, core) of the open launch. It starts when the
 * instructions that returned `waits` (n_waits tokens of the same core and launch) have
 * completed and its unit is free; its own token goes to token_out. */

/* DMA copy, equal shapes, row-major element order, memmove semantics. The core reaches the
 * LBs and GB of its own cluster, and DDR. */
td_status td_dma(uint64_t dev, uint32_t cluster, uint32_t core, const td_view *src,
                 const td_view *dst, const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* c[M,N] (+)= a[M,K] . b[K,N] on the matrix engine; operands in the core's own LB; c must not
 * overlap a or b. */
td_status td_matmul(uint64_t dev, uint32_t cluster, uint32_t core, const td_view *a,
                    const td_view *b, const td_view *c, int32_t accumulate,
                    const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* output[N,O,OH,OW] (+)= conv2d(input[N,C,H,W], filter[O,C/groups,KH,KW]) on the matrix
 * engine; operands in the core's own LB; output must not overlap the inputs. */
td_status td_conv2d(uint64_t dev, uint32_t cluster, uint32_t core, const td_view *input,
                    const td_view *filter, const td_view *output, const td_conv2d_params *params,
                    int32_t accumulate, const uint64_t *waits, uint64_t n_waits,
                    uint64_t *token_out);
/* out = a op b, a and b broadcast to out's shape (TD_BINARY_*). */
td_status td_binary(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t op, const td_view *a,
                    const td_view *b, const td_view *out, const uint64_t *waits, uint64_t n_waits,
                    uint64_t *token_out);
/* out = op(input), same shapes (TD_UNARY_*; p0, p1 for clip and affine, else ignored). */
td_status td_unary(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t op, float p0, float p1,
                   const td_view *input, const td_view *out, const uint64_t *waits,
                   uint64_t n_waits, uint64_t *token_out);
/* out = input converted to out's element type (ONNX Cast: floats truncate toward zero and
 * saturate, NaN becomes 0; integers wrap; non-zero becomes true). Vector engine. */
td_status td_convert(uint64_t dev, uint32_t cluster, uint32_t core, const td_view *input,
                     const td_view *out, const uint64_t *waits, uint64_t n_waits,
                     uint64_t *token_out);
/* out = a predicate b (TD_COMPARE_*): a and b of one element type, out bool; same shapes, own LB.
 * Vector engine. */
td_status td_compare(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t predicate,
                     const td_view *a, const td_view *b, const td_view *out,
                     const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* out = cond ? a : b: cond bool, a, b and out of one element type; same shapes, own LB. Vector
 * engine. */
td_status td_select(uint64_t dev, uint32_t cluster, uint32_t core, const td_view *cond,
                    const td_view *a, const td_view *b, const td_view *out,
                    const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* DMA gather: out is table with the extent at `axis` replaced by the number of indices (i64 or
 * i32, row-major order; negative ones count from the end); slice k of out along axis is slice
 * indices[k] of table. An index outside the table fails the launch's execution with
 * TD_ERR_OUT_OF_BOUNDS naming the instruction, core, launch and layer. */
td_status td_gather(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t axis,
                    const td_view *table, const td_view *indices, const td_view *out,
                    const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* DMA gather of single elements (ONNX GatherElements): indices and out have one shape, data has
 * it too but along `axis`; out[c] is data[c] with coordinate `axis` replaced by indices[c] (i64
 * or i32; negative ones count from the end). An index outside data fails the launch's
 * execution with TD_ERR_OUT_OF_BOUNDS naming the instruction, core, launch and layer. */
td_status td_gather_elements(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t axis,
                             const td_view *data, const td_view *indices, const td_view *out,
                             const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* DMA scatter of single elements (ONNX ScatterElements) into out, which holds the data already:
 * indices and updates have one shape, out has it too but along `axis`; updates[c] lands on out[c]
 * with coordinate `axis` replaced by indices[c] (i64 or i32; negative ones count from the end), in
 * row-major order of c. reduction 0 replaces the element there (the last of duplicates wins);
 * 1 + TD_BINARY_ADD, _MUL, _MAX or _MIN combines with it (f32, i64, i32). An index outside out
 * fails the launch's execution with TD_ERR_OUT_OF_BOUNDS naming the instruction, core,
 * launch and layer. */
td_status td_scatter_elements(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t axis,
                              uint32_t reduction, const td_view *indices, const td_view *updates,
                              const td_view *out, const uint64_t *waits, uint64_t n_waits,
                              uint64_t *token_out);
/* out (i64) = the index along axis of each line's largest (largest != 0) or smallest element of
 * input (f32), the last of equals with last != 0; out has input's shape with extent 1 at axis; a
 * NaN is the extreme, the first NaN wins. Vector core. */
td_status td_arg_reduce(uint64_t dev, uint32_t cluster, uint32_t core, int32_t largest,
                        int32_t last, uint32_t axis, const td_view *input, const td_view *out,
                        const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* values (f32) and indices (i64) = the k largest (largest != 0) or smallest elements of each line
 * of input (f32) along axis, in order, and their indices; k is their extent at axis, the input's
 * shape elsewhere. Equal elements keep the lower index first; NaNs come before every number.
 * Vector core. */
td_status td_top_k(uint64_t dev, uint32_t cluster, uint32_t core, int32_t largest, uint32_t axis,
                   const td_view *input, const td_view *values, const td_view *indices,
                   const uint64_t *waits, uint64_t n_waits, uint64_t *token_out);
/* out[N,C,OH,OW] = pool(input[N,C,H,W]). */
td_status td_pool2d(uint64_t dev, uint32_t cluster, uint32_t core, const td_pool2d_params *params,
                    const td_view *input, const td_view *out, const uint64_t *waits,
                    uint64_t n_waits, uint64_t *token_out);
/* out = reduce(input) along axis; out has input's shape with extent 1 at axis (TD_REDUCE_*). */
td_status td_reduce(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t kind, uint32_t axis,
                    const td_view *input, const td_view *out, const uint64_t *waits,
                    uint64_t n_waits, uint64_t *token_out);
/* Later instructions of the core start only once `waits` are ready. */
td_status td_wait(uint64_t dev, uint32_t cluster, uint32_t core, const uint64_t *waits,
                  uint64_t n_waits, uint64_t *token_out);
/* This core's arrival at the launch's next barrier; every core of the launch must record the
 * same number of barriers. */
td_status td_barrier(uint64_t dev, uint32_t cluster, uint32_t core, uint64_t *token_out);

/* ---- Layers ------------------------------------------------------------------------------ */

/* Names layer `layer` (a model op) for the report's per-layer table. */
td_status td_layer_name(uint64_t dev, uint32_t layer, const char *name);
/* Names layers 0 to count - 1 from `names`: count NUL-terminated names back to back, layer i's
 * the i-th. */
td_status td_layer_names(uint64_t dev, uint32_t count, const char *names);
/* Attributes the instructions the core records next in the open launch to `layer`
 * (UINT32_MAX: to none). */
td_status td_layer(uint64_t dev, uint32_t cluster, uint32_t core, uint32_t layer);

/* ---- Report and trace ------------------------------------------------------------------ */

/* Copies the report (TD_REPORT_JSON; TD_REPORT_TEXT, a summary; TD_REPORT_TEXT_DETAIL, the summary
 * and every unit, DMA channel and port) into buf (cap bytes, NUL-terminated) and stores its length without NUL in len_out. With buf NULL only the length is stored. */
td_status td_report(uint64_t dev, uint32_t format, char *buf, uint64_t cap, uint64_t *len_out);
td_status td_report_write(uint64_t dev, uint32_t format, const char *path);
/* Restarts the report's counters and high-water marks; simulated time goes on. */
td_status td_report_reset(uint64_t dev);
/* Trace recording on (nonzero) or off (zero drops what was recorded). */
td_status td_trace_enable(uint64_t dev, int32_t on);
/* Writes the trace as Chrome trace-event JSON (opens in ui.perfetto.dev): one event per run of
 * consecutive instructions of one layer and launch on a unit, DMA channel or port. */
td_status td_trace_write(uint64_t dev, const char *path);
/* Writes the trace in a format: TD_TRACE_JSON_LAYERS (as td_trace_write),
 * TD_TRACE_JSON_INSTRUCTIONS (one event per instruction) or TD_TRACE_TIMELINE_SVG (a picture:
 * a lane per unit, DMA channel and port, coloured by layer). */
td_status td_trace_write_format(uint64_t dev, uint32_t format, const char *path);

/* ---- Compiled models ------------------------------------------------------------------- */

/* An ahead-of-time compiled model (turbine-translate --compile) carries a td_model_desc of its
 * entry function; the model_create/model_run/model_destroy functions of its header call these.
 * A model has a device of its own, opened by td_model_create and destroyed with the model. */
#define TD_ROLE_INPUT 0    /* input `index`, written from the caller's data by td_model_run */
#define TD_ROLE_OUTPUT 1   /* output `index`, read into the caller's data by td_model_run */
#define TD_ROLE_WEIGHT 2   /* tensor `name` of the weights file, checked and written at creation */
#define TD_ROLE_CONSTANT 3 /* `data`, written at creation */
#define TD_ROLE_SCRATCH 4  /* used by the entry only */

typedef struct td_model_buffer {
  uint32_t role;   /* TD_ROLE_* */
  uint32_t dtype;  /* TD_DTYPE_* */
  uint32_t index;  /* input or output index */
  uint32_t rank;
  const uint64_t *shape; /* rank extents */
  const char *name;      /* weights: the tensor's name; NULL otherwise */
  const void *data;      /* constants: the bytes of every element; NULL otherwise */
} td_model_buffer;

typedef struct td_model_desc {
  const char *name; /* the entry's name, for messages */
  td_status (*entry)(uint64_t dev, const uint64_t *buffers);
  uint64_t n_buffers;
  const td_model_buffer *buffers; /* the entry's buffers, in argument order */
} td_model_desc;

/* Opens a device of `target`, allocates every buffer of `desc` in DDR, writes the constants and
 * the weights from the safetensors file `weights_path` (NULL for a model without weights; each
 * tensor must have the buffer's name, dtype and shape, else the error names it) and stores the
 * model's handle. Nothing stays allocated after a failure. */
td_status td_model_create(const td_model_desc *desc, const char *weights_path, const char *target,
                          uint64_t *model_out);
/* Writes inputs[i] (the bytes of input i) into the inputs, runs the entry and reads output i into
 * outputs[i]. Sizes are the buffers' (the model's header lists them). */
td_status td_model_run(uint64_t model, const void *const *inputs, void *const *outputs);
/* The model's device, for td_report and td_trace_*. */
td_status td_model_device(uint64_t model, uint64_t *device_out);
/* Destroys the model and its device. */
td_status td_model_destroy(uint64_t model);

#ifdef __cplusplus
}
#endif

#endif /* TURBINE_DSA_H */
