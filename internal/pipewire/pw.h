// The C half of package pipewire: a video stream consumer over libpipewire,
// loaded with dlopen so the binary runs where PipeWire is absent.
#ifndef DESKPILOT_PW_H
#define DESKPILOT_PW_H

#include <stdint.h>

typedef struct dp_stream dp_stream;

// dp_load loads libpipewire-0.3.so.0; 0 on success, else err says why.
int dp_load(char *err, int n);

// dp_open connects to the PipeWire daemon on fd (taken over) and consumes
// video node `node`. NULL on failure, with err set.
dp_stream *dp_open(int fd, uint32_t node, char *err, int n);

// dp_read converts the newest frame into dst (RGBA, w x h, dst_stride bytes
// a row). 0: done; 1: no frame yet; 2: the frame has another size (see
// dp_size); -1: the stream failed (dp_error).
int dp_read(dp_stream *s, uint8_t *dst, int dst_stride, int w, int h, uint64_t *seq);

// dp_size reports the newest frame's size; 0 when there is none yet.
int dp_size(dp_stream *s, int *w, int *h);

// dp_cursor reports the pointer position the stream's cursor metadata gave
// last; 0 when it gave none.
int dp_cursor(dp_stream *s, int *x, int *y);

// dp_error copies the stream's error; 0 when it has none.
int dp_error(dp_stream *s, char *buf, int n);

// dp_close stops the stream and frees it.
void dp_close(dp_stream *s);

#endif
