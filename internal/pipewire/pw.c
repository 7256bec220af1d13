#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/buffers.h>
#include <spa/buffer/meta.h>

#include "pw.h"

// The size of cursor metadata that carries a w x h RGBA bitmap.
#define CURSOR_META_SIZE(w, h) \
	(sizeof(struct spa_meta_cursor) + sizeof(struct spa_meta_bitmap) + (w) * (h) * 4)

// The library's functions, resolved by dp_load. The header declarations give
// their types; nothing here links against libpipewire.
#define DP_SYMS(X) \
	X(pw_init) X(pw_thread_loop_new) X(pw_thread_loop_get_loop) X(pw_thread_loop_start) \
	X(pw_thread_loop_lock) X(pw_thread_loop_unlock) X(pw_thread_loop_stop) X(pw_thread_loop_destroy) \
	X(pw_context_new) X(pw_context_connect_fd) X(pw_context_destroy) X(pw_core_disconnect) \
	X(pw_stream_new) X(pw_stream_add_listener) X(pw_stream_connect) X(pw_stream_dequeue_buffer) \
	X(pw_stream_queue_buffer) X(pw_stream_destroy) X(pw_stream_update_params) X(pw_properties_new)

#define DP_DECL(n) static __typeof__(n) *p_##n;
DP_SYMS(DP_DECL)

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

int dp_load(char *err, int n) {
	pthread_mutex_lock(&load_mu);
	if (loaded) {
		pthread_mutex_unlock(&load_mu);
		return 0;
	}
	void *h = dlopen("libpipewire-0.3.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, n, "%s", dlerror());
		pthread_mutex_unlock(&load_mu);
		return -1;
	}
#define DP_LOAD(name) \
	p_##name = (__typeof__(name) *)dlsym(h, #name); \
	if (!p_##name) { snprintf(err, n, "libpipewire-0.3 lacks %s", #name); pthread_mutex_unlock(&load_mu); return -1; }
	DP_SYMS(DP_LOAD)
	p_pw_init(NULL, NULL);
	loaded = 1;
	pthread_mutex_unlock(&load_mu);
	return 0;
}

struct dp_stream {
	struct pw_thread_loop *loop;
	struct pw_context *ctx;
	struct pw_core *core;
	struct pw_stream *stream;
	struct spa_hook stream_listener;
	struct spa_hook core_listener;
	struct spa_video_info_raw info;

	pthread_mutex_t mu; // guards what follows
	uint8_t *frame;     // the newest frame, as the stream gave it
	size_t cap;
	int width, height, stride;
	uint32_t format;
	uint64_t seq;
	int has_cursor, cur_x, cur_y;
	char err[256];
};

static void fail(struct dp_stream *s, const char *msg) {
	pthread_mutex_lock(&s->mu);
	if (!s->err[0])
		snprintf(s->err, sizeof s->err, "%s", msg);
	pthread_mutex_unlock(&s->mu);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
	struct dp_stream *s = data;
	if (param == NULL || id != SPA_PARAM_Format)
		return;
	uint32_t media_type, media_subtype;
	if (spa_format_parse(param, &media_type, &media_subtype) < 0 ||
	    media_type != SPA_MEDIA_TYPE_video || media_subtype != SPA_MEDIA_SUBTYPE_raw)
		return;
	if (spa_format_video_raw_parse(param, &s->info) < 0)
		return;
	uint8_t buf[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buf, sizeof buf);
	const struct spa_pod *params[3];
	params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
		SPA_PARAM_BUFFERS_dataType, SPA_POD_Int((1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr)));
	params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
		SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
	params[2] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Cursor),
		SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(CURSOR_META_SIZE(64, 64), CURSOR_META_SIZE(1, 1), CURSOR_META_SIZE(256, 256)));
	p_pw_stream_update_params(s->stream, params, 3);
}

static void on_process(void *data) {
	struct dp_stream *s = data;
	struct pw_buffer *b = p_pw_stream_dequeue_buffer(s->stream);
	if (!b)
		return;
	struct spa_buffer *buf = b->buffer;
	struct spa_meta_cursor *mc = spa_buffer_find_meta_data(buf, SPA_META_Cursor, sizeof *mc);
	pthread_mutex_lock(&s->mu);
	if (mc && spa_meta_cursor_is_valid(mc)) {
		s->has_cursor = 1;
		s->cur_x = mc->position.x;
		s->cur_y = mc->position.y;
	}
	struct spa_data *d = &buf->datas[0];
	int w = s->info.size.width, h = s->info.size.height;
	if (buf->n_datas > 0 && d->data && d->chunk && d->chunk->size > 0 && w > 0 && h > 0) {
		int stride = d->chunk->stride > 0 ? d->chunk->stride : w * 4;
		size_t need = (size_t)w * 4 * h;
		if ((size_t)d->chunk->offset + (size_t)stride * (h - 1) + (size_t)w * 4 <= d->maxsize) {
			if (s->cap < need) {
				free(s->frame);
				s->frame = malloc(need);
				s->cap = s->frame ? need : 0;
			}
			if (s->frame) {
				const uint8_t *src = (const uint8_t *)d->data + d->chunk->offset;
				for (int y = 0; y < h; y++)
					memcpy(s->frame + (size_t)y * w * 4, src + (size_t)y * stride, (size_t)w * 4);
				s->width = w;
				s->height = h;
				s->stride = w * 4;
				s->format = s->info.format;
				s->seq++;
			}
		}
	}
	pthread_mutex_unlock(&s->mu);
	p_pw_stream_queue_buffer(s->stream, b);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
	struct dp_stream *s = data;
	if (state == PW_STREAM_STATE_ERROR)
		fail(s, error ? error : "the stream failed");
	else if (state == PW_STREAM_STATE_UNCONNECTED && old != PW_STREAM_STATE_UNCONNECTED)
		fail(s, "the stream was disconnected");
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.process = on_process,
};

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
	struct dp_stream *s = data;
	if (id == PW_ID_CORE) {
		char msg[256];
		snprintf(msg, sizeof msg, "PipeWire: %s (%s)", message ? message : "error", strerror(-res));
		fail(s, msg);
	}
}

static const struct pw_core_events core_events = {
	PW_VERSION_CORE_EVENTS,
	.error = on_core_error,
};

dp_stream *dp_open(int fd, uint32_t node, char *err, int n) {
	struct dp_stream *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, n, "out of memory");
		close(fd);
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	s->loop = p_pw_thread_loop_new("deskpilot-pw", NULL);
	if (!s->loop) {
		snprintf(err, n, "cannot make a PipeWire loop");
		close(fd);
		free(s);
		return NULL;
	}
	s->ctx = p_pw_context_new(p_pw_thread_loop_get_loop(s->loop), NULL, 0);
	if (!s->ctx || p_pw_thread_loop_start(s->loop) < 0) {
		snprintf(err, n, "cannot start a PipeWire context");
		close(fd);
		dp_close(s);
		return NULL;
	}
	p_pw_thread_loop_lock(s->loop);
	s->core = p_pw_context_connect_fd(s->ctx, fd, NULL, 0);
	if (!s->core) {
		snprintf(err, n, "cannot connect to PipeWire: %s", strerror(errno));
		p_pw_thread_loop_unlock(s->loop);
		dp_close(s);
		return NULL;
	}
	pw_core_add_listener(s->core, &s->core_listener, &core_events, s);
	s->stream = p_pw_stream_new(s->core, "deskpilot",
		p_pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
			PW_KEY_MEDIA_ROLE, "Screen", NULL));
	if (!s->stream) {
		snprintf(err, n, "cannot make a PipeWire stream");
		p_pw_thread_loop_unlock(s->loop);
		dp_close(s);
		return NULL;
	}
	p_pw_stream_add_listener(s->stream, &s->stream_listener, &stream_events, s);
	uint8_t buf[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buf, sizeof buf);
	const struct spa_pod *params[1];
	params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
		SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
		SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
		SPA_FORMAT_VIDEO_format, SPA_POD_CHOICE_ENUM_Id(5, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx,
			SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_RGBx, SPA_VIDEO_FORMAT_RGBA),
		SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&SPA_RECTANGLE(1920, 1080),
			&SPA_RECTANGLE(1, 1), &SPA_RECTANGLE(16384, 16384)),
		SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(60, 1),
			&SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)));
	if (p_pw_stream_connect(s->stream, PW_DIRECTION_INPUT, node,
		PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, 1) < 0) {
		snprintf(err, n, "cannot connect to PipeWire node %u", node);
		p_pw_thread_loop_unlock(s->loop);
		dp_close(s);
		return NULL;
	}
	p_pw_thread_loop_unlock(s->loop);
	return s;
}

int dp_read(dp_stream *s, uint8_t *dst, int dst_stride, int w, int h, uint64_t *seq) {
	pthread_mutex_lock(&s->mu);
	int rc = 0;
	if (s->err[0])
		rc = -1;
	else if (s->seq == 0)
		rc = 1;
	else if (s->width != w || s->height != h)
		rc = 2;
	if (rc) {
		pthread_mutex_unlock(&s->mu);
		return rc;
	}
	int swap = s->format == SPA_VIDEO_FORMAT_BGRx || s->format == SPA_VIDEO_FORMAT_BGRA;
	for (int y = 0; y < h; y++) {
		const uint32_t *src = (const uint32_t *)(s->frame + (size_t)y * s->stride);
		uint32_t *out = (uint32_t *)(dst + (size_t)y * dst_stride);
		if (swap) {
			for (int x = 0; x < w; x++) {
				uint32_t v = src[x]; // bytes B, G, R, X
				out[x] = 0xff000000u | (v & 0xff00u) | ((v & 0xffu) << 16) | ((v >> 16) & 0xffu);
			}
		} else {
			for (int x = 0; x < w; x++)
				out[x] = 0xff000000u | src[x];
		}
	}
	*seq = s->seq;
	pthread_mutex_unlock(&s->mu);
	return 0;
}

int dp_size(dp_stream *s, int *w, int *h) {
	pthread_mutex_lock(&s->mu);
	int ok = s->seq > 0;
	*w = s->width;
	*h = s->height;
	pthread_mutex_unlock(&s->mu);
	return ok;
}

int dp_cursor(dp_stream *s, int *x, int *y) {
	pthread_mutex_lock(&s->mu);
	int ok = s->has_cursor;
	*x = s->cur_x;
	*y = s->cur_y;
	pthread_mutex_unlock(&s->mu);
	return ok;
}

int dp_error(dp_stream *s, char *buf, int n) {
	pthread_mutex_lock(&s->mu);
	int has = s->err[0] != 0;
	if (has)
		snprintf(buf, n, "%s", s->err);
	pthread_mutex_unlock(&s->mu);
	return has;
}

void dp_close(dp_stream *s) {
	if (!s)
		return;
	if (s->loop)
		p_pw_thread_loop_lock(s->loop);
	if (s->stream)
		p_pw_stream_destroy(s->stream);
	if (s->core)
		p_pw_core_disconnect(s->core);
	if (s->loop) {
		p_pw_thread_loop_unlock(s->loop);
		p_pw_thread_loop_stop(s->loop);
	}
	if (s->ctx)
		p_pw_context_destroy(s->ctx);
	if (s->loop)
		p_pw_thread_loop_destroy(s->loop);
	pthread_mutex_destroy(&s->mu);
	free(s->frame);
	free(s);
}
