/* tools/cli_io.c: input files, bin edges and safe output files (see cli_io.h). */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, mkstemp, fchmod, sigaction */

#include "cli_io.h"

#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int report(int code, char *err, size_t len, const char *fmt, ...) {
  if (err && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
  }
  return code;
}

int cli_has_suffix(const char *path, const char *suffix) {
  const size_t n = strlen(path), m = strlen(suffix);
  if (n < m)
    return 0;
  for (size_t i = 0; i < m; ++i)
    if (tolower((unsigned char)path[n - m + i]) != tolower((unsigned char)suffix[i]))
      return 0;
  return 1;
}

/* Opens path for reading and returns its size; a directory or other non-regular file is an
 * input error (fread on a directory fails only later, with a less clear message). */
static int open_regular(const char *path, FILE **out, uint64_t *size, char *err, size_t len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return report(CLI_EXIT_INPUT, err, len, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    const int e = errno;
    fclose(f);
    return report(CLI_EXIT_INPUT, err, len, "%s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    fclose(f);
    return report(CLI_EXIT_INPUT, err, len, "%s: not a regular file", path);
  }
  *out = f;
  *size = (uint64_t)st.st_size;
  return CLI_EXIT_OK;
}

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* Reads up to sizeof npy_magic bytes and rewinds: 1 if the file starts with the magic. */
static int starts_with_magic(FILE *f, uint64_t size, int *yes, const char *path, char *err,
                             size_t len) {
  unsigned char head[sizeof npy_magic];
  const size_t want = size < sizeof head ? (size_t)size : sizeof head;
  if (fread(head, 1, want, f) != want || fseek(f, 0, SEEK_SET) != 0)
    return report(CLI_EXIT_INPUT, err, len, "%s: read error: %s", path, strerror(errno));
  *yes = want == sizeof head && memcmp(head, npy_magic, sizeof head) == 0;
  return CLI_EXIT_OK;
}

static int npy_error(npy_status s, const char *path, const char *detail, char *err, size_t len) {
  return report(s == NPY_ERR_IO ? CLI_EXIT_INPUT : CLI_EXIT_FORMAT, err, len, "%s: %s: %s", path,
                npy_status_string(s), detail);
}

int cli_input_open(cli_input *in, const char *path, int have_dtype, cuprim_dtype dtype, char *err,
                   size_t len) {
  memset(in, 0, sizeof *in);
  in->path = path;
  uint64_t size = 0;
  FILE *f = NULL;
  int rc = open_regular(path, &f, &size, err, len);
  if (rc)
    return rc;
  int magic = 0;
  rc = starts_with_magic(f, size, &magic, path, err, len);
  if (rc) {
    fclose(f);
    return rc;
  }
  if (magic || (!have_dtype && cli_has_suffix(path, ".npy"))) {
    npy_header h;
    char detail[256];
    const npy_status s = npy_read_header(f, size, &h, detail, sizeof detail);
    if (s != NPY_OK) {
      fclose(f);
      return npy_error(s, path, detail, err, len);
    }
    if (have_dtype && h.dtype != dtype) {
      fclose(f);
      return report(CLI_EXIT_FORMAT, err, len, "%s: the .npy file holds %s, not --dtype %s", path,
                    hr_dtype_name(h.dtype), hr_dtype_name(dtype));
    }
    in->is_npy = 1;
    in->dtype = h.dtype;
    in->count = h.count;
  } else {
    if (!have_dtype) {
      fclose(f);
      return report(CLI_EXIT_FORMAT, err, len,
                    "%s: not a .npy file (no \\x93NUMPY magic); give --dtype T to read raw binary",
                    path);
    }
    const size_t esize = npy_dtype_size(dtype);
    if (size % esize != 0) {
      fclose(f);
      return report(CLI_EXIT_FORMAT, err, len,
                    "%s: raw file of %llu bytes is not a whole number of %s elements (%zu bytes)",
                    path, (unsigned long long)size, hr_dtype_name(dtype), esize);
    }
    in->dtype = dtype;
    in->count = size / esize;
  }
  in->f = f;
  in->bytes = in->count * npy_dtype_size(in->dtype);
  return CLI_EXIT_OK;
}

int cli_input_read(cli_input *in, void *buf, size_t bytes, char *err, size_t len) {
  if (bytes > in->bytes - in->done)
    return report(CLI_EXIT_INPUT, err, len, "%s: read past the data (internal error)", in->path);
  const size_t got = fread(buf, 1, bytes, in->f);
  if (got != bytes) {
    if (feof(in->f))
      return report(CLI_EXIT_FORMAT, err, len,
                    "%s: truncated data: the file ended after %llu bytes", in->path,
                    (unsigned long long)(in->done + got));
    return report(CLI_EXIT_INPUT, err, len, "%s: read error: %s", in->path, strerror(errno));
  }
  in->done += bytes;
  return CLI_EXIT_OK;
}

void cli_input_close(cli_input *in) {
  if (in->f)
    fclose(in->f);
  in->f = NULL;
}

/* ---------------------------------------------------------------- edges */

/* Edges at most this many (2^32 bins plus one would be 32 GiB of doubles; a text file of edges
 * that large is a mistake): 2^28 edges, 2 GiB of doubles. */
#define MAX_EDGES ((uint64_t)1 << 28)

static int check_edges(const char *path, const double *e, uint64_t count, char *err, size_t len) {
  if (count < 2)
    return report(CLI_EXIT_FORMAT, err, len, "%s: %llu edge(s); at least 2 are needed (one bin)",
                  path, (unsigned long long)count);
  if (count - 1 > UINT32_MAX)
    return report(CLI_EXIT_FORMAT, err, len, "%s: more than 2^32 - 1 bins", path);
  for (uint64_t i = 0; i < count; ++i) {
    if (!isfinite(e[i]))
      return report(CLI_EXIT_FORMAT, err, len, "%s: edge %llu is not finite", path,
                    (unsigned long long)i);
    if (i > 0 && !(e[i - 1] < e[i]))
      return report(CLI_EXIT_FORMAT, err, len,
                    "%s: edges must be strictly increasing: edge %llu (%.17g) <= edge %llu (%.17g)",
                    path, (unsigned long long)i, e[i], (unsigned long long)(i - 1), e[i - 1]);
  }
  return CLI_EXIT_OK;
}

static int read_npy_edges(const char *path, FILE *f, uint64_t size, double **out, uint64_t *count,
                          char *err, size_t len) {
  npy_header h;
  char detail[256];
  const npy_status s = npy_read_header(f, size, &h, detail, sizeof detail);
  if (s != NPY_OK)
    return npy_error(s, path, detail, err, len);
  if (h.count > MAX_EDGES)
    return report(CLI_EXIT_FORMAT, err, len, "%s: %llu edges are too many", path,
                  (unsigned long long)h.count);
  const size_t esize = npy_dtype_size(h.dtype);
  unsigned char *raw = (unsigned char *)malloc(h.count ? (size_t)h.count * esize : 1);
  double *e = (double *)malloc(h.count ? (size_t)h.count * sizeof(double) : 1);
  if (!raw || !e) {
    free(raw);
    free(e);
    return report(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
  }
  if (fread(raw, esize, (size_t)h.count, f) != (size_t)h.count) {
    free(raw);
    free(e);
    return report(CLI_EXIT_INPUT, err, len, "%s: read error: %s", path, strerror(errno));
  }
  for (uint64_t i = 0; i < h.count; ++i)
    e[i] = hr_to_double(h.dtype, raw, i);
  free(raw);
  *out = e;
  *count = h.count;
  return CLI_EXIT_OK;
}

static int read_text_edges(const char *path, FILE *f, uint64_t size, double **out, uint64_t *count,
                           char *err, size_t len) {
  char *text = (char *)malloc((size_t)size + 1);
  if (!text)
    return report(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
  if (fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    return report(CLI_EXIT_INPUT, err, len, "%s: read error: %s", path, strerror(errno));
  }
  text[size] = '\0';
  uint64_t cap = 64, n = 0, line = 1;
  double *e = (double *)malloc(cap * sizeof(double));
  int rc = e ? CLI_EXIT_OK : report(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
  for (char *p = text; rc == CLI_EXIT_OK && *p;) {
    if (*p == '\n') {
      ++line;
      ++p;
    } else if (*p == '#') {
      while (*p && *p != '\n')
        ++p;
    } else if (isspace((unsigned char)*p) || *p == ',') {
      ++p;
    } else {
      char *start = p;
      while (*p && !isspace((unsigned char)*p) && *p != ',' && *p != '#')
        ++p;
      const char saved = *p;
      *p = '\0';
      double v = 0.0;
      if (cli_parse_double(start, &v)) {
        rc = report(CLI_EXIT_FORMAT, err, len, "%s: line %llu: '%s' is not a finite number", path,
                    (unsigned long long)line, start);
        break;
      }
      *p = saved;
      if (n == MAX_EDGES) {
        rc = report(CLI_EXIT_FORMAT, err, len, "%s: too many edges", path);
        break;
      }
      if (n == cap) {
        double *grown = (double *)realloc(e, 2 * cap * sizeof(double));
        if (!grown) {
          rc = report(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
          break;
        }
        e = grown;
        cap *= 2;
      }
      e[n++] = v;
    }
  }
  free(text);
  if (rc) {
    free(e);
    return rc;
  }
  *out = e;
  *count = n;
  return CLI_EXIT_OK;
}

int cli_read_edges(const char *path, double **edges, uint32_t *bins, char *err, size_t len) {
  FILE *f = NULL;
  uint64_t size = 0;
  int rc = open_regular(path, &f, &size, err, len);
  if (rc)
    return rc;
  int magic = 0;
  rc = starts_with_magic(f, size, &magic, path, err, len);
  double *e = NULL;
  uint64_t count = 0;
  if (rc == CLI_EXIT_OK) {
    if (magic || cli_has_suffix(path, ".npy"))
      rc = read_npy_edges(path, f, size, &e, &count, err, len);
    else
      rc = read_text_edges(path, f, size, &e, &count, err, len);
  }
  fclose(f);
  if (rc == CLI_EXIT_OK)
    rc = check_edges(path, e, count, err, len);
  if (rc) {
    free(e);
    return rc;
  }
  *edges = e;
  *bins = (uint32_t)(count - 1);
  return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- output */

/* The temporary being written, for the signal handler: removed if the program is interrupted.
 * One output at a time is written. */
static char *volatile pending_tmp;

static void remove_pending(int sig) {
  char *p = pending_tmp;
  if (p)
    unlink(p); /* async-signal-safe */
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_handlers(void) {
  static int done;
  if (done)
    return;
  done = 1;
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_pending;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(sigs[i], &sa, NULL); /* best effort: without it, only Ctrl-C leaves a file */
  }
}

int cli_output_open(cli_output *o, const char *path, char *err, size_t len) {
  memset(o, 0, sizeof *o);
  const char *slash = strrchr(path, '/');
  const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = slash ? slash + 1 : path;
  if (!*base)
    return report(CLI_EXIT_OUTPUT, err, len, "%s: not a file name", path);
  static const char suffix[] = ".tmp-XXXXXX";
  const size_t tmp_len = dir_len + 1 + strlen(base) + sizeof suffix;
  o->path = strdup(path);
  o->tmp_path = (char *)malloc(tmp_len);
  if (!o->path || !o->tmp_path) {
    cli_output_abort(o);
    return report(CLI_EXIT_FAILED, err, len, "out of host memory");
  }
  snprintf(o->tmp_path, tmp_len, "%.*s.%s%s", (int)dir_len, path, base, suffix);
  install_handlers();
  const int fd = mkstemp(o->tmp_path);
  if (fd < 0) {
    const int e = errno;
    free(o->tmp_path);
    o->tmp_path = NULL;
    cli_output_abort(o);
    return report(CLI_EXIT_OUTPUT, err, len, "%s: cannot create a file there: %s", path,
                  strerror(e));
  }
  pending_tmp = o->tmp_path;
  /* mkstemp makes the file 0600; a new output should get 0666 less the umask, as fopen's would. */
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
    const int e = errno;
    if (!o->f)
      close(fd);
    cli_output_abort(o);
    return report(CLI_EXIT_OUTPUT, err, len, "%s: %s", path, strerror(e));
  }
  return CLI_EXIT_OK;
}

int cli_output_write(cli_output *o, const void *buf, size_t bytes, char *err, size_t len) {
  if (bytes && fwrite(buf, 1, bytes, o->f) != bytes)
    return report(CLI_EXIT_OUTPUT, err, len, "%s: write error: %s", o->path, strerror(errno));
  return CLI_EXIT_OK;
}

int cli_output_commit(cli_output *o, char *err, size_t len) {
  FILE *f = o->f;
  o->f = NULL;
  const int flush_failed = fflush(f) != 0;
  const int e1 = errno;
  const int close_failed = fclose(f) != 0;
  const int e2 = errno;
  if (flush_failed || close_failed) {
    const int rc = report(CLI_EXIT_OUTPUT, err, len, "%s: write error: %s", o->path,
                          strerror(flush_failed ? e1 : e2));
    cli_output_abort(o);
    return rc;
  }
  if (rename(o->tmp_path, o->path) != 0) {
    const int e = errno;
    const int rc = report(CLI_EXIT_OUTPUT, err, len, "%s: cannot rename %s into place: %s", o->path,
                          o->tmp_path, strerror(e));
    cli_output_abort(o);
    return rc;
  }
  pending_tmp = NULL;
  free(o->tmp_path);
  free(o->path);
  memset(o, 0, sizeof *o);
  return CLI_EXIT_OK;
}

void cli_output_abort(cli_output *o) {
  if (o->f)
    fclose(o->f);
  if (o->tmp_path) {
    pending_tmp = NULL;
    unlink(o->tmp_path);
  }
  free(o->tmp_path);
  free(o->path);
  memset(o, 0, sizeof *o);
}
