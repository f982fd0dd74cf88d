/* tools/cli_io.c: input files, bin edges and safe output files (see cli_io.h). */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, mkstemp, fchmod, sigaction, readlink */

#include "cli_io.h"

#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int cli_has_suffix(const char *path, const char *suffix) {
  const size_t n = strlen(path), m = strlen(suffix);
  if (n < m)
    return 0;
  for (size_t i = 0; i < m; ++i)
    if (tolower((unsigned char)path[n - m + i]) != tolower((unsigned char)suffix[i]))
      return 0;
  return 1;
}

/* What a file that is not a regular one is, for messages. */
static const char *kind_of(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

/* Opens path for reading and returns its size. Anything but a regular file (a directory, a FIFO,
 * a device) is an input error, found before a byte is read: the size of the data must be known
 * up front, and reading a FIFO or a terminal could wait forever. The file is opened with
 * O_NONBLOCK, which makes opening a FIFO return at once instead of waiting for a writer, and is
 * checked on the descriptor itself, so that nothing can swap the file between check and open. */
static int open_regular(const char *path, FILE **out, uint64_t *size, char *err, size_t len) {
  const int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0)
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: not a regular file (%s)", path,
                     kind_of(st.st_mode));
  }
  const int flags = fcntl(fd, F_GETFL);
  FILE *f = NULL;
  if (flags == -1 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1 || !(f = fdopen(fd, "rb"))) {
    const int e = errno;
    close(fd);
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: %s", path, strerror(e));
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
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: read error: %s", path, strerror(errno));
  *yes = want == sizeof head && memcmp(head, npy_magic, sizeof head) == 0;
  return CLI_EXIT_OK;
}

static int npy_error(npy_status s, const char *path, const char *detail, char *err, size_t len) {
  return cli_error(s == NPY_ERR_IO ? CLI_EXIT_INPUT : CLI_EXIT_FORMAT, err, len, "%s: %s: %s", path,
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
      return cli_error(CLI_EXIT_FORMAT, err, len, "%s: the .npy file holds %s, not --dtype %s",
                       path, hr_dtype_name(h.dtype), hr_dtype_name(dtype));
    }
    in->is_npy = 1;
    in->dtype = h.dtype;
    in->count = h.count;
    in->data_offset = h.data_offset;
  } else {
    if (!have_dtype) {
      fclose(f);
      return cli_error(
          CLI_EXIT_FORMAT, err, len,
          "%s: not a .npy file (no \\x93NUMPY magic); give --dtype T to read raw binary", path);
    }
    const size_t esize = npy_dtype_size(dtype);
    if (size % esize != 0) {
      fclose(f);
      return cli_error(
          CLI_EXIT_FORMAT, err, len,
          "%s: raw file of %llu bytes is not a whole number of %s elements (%zu bytes)", path,
          (unsigned long long)size, hr_dtype_name(dtype), esize);
    }
    in->dtype = dtype;
    in->count = size / esize;
  }
  in->f = f;
  in->bytes = in->count * npy_dtype_size(in->dtype);
  return CLI_EXIT_OK;
}

int cli_input_seek(cli_input *in, uint64_t i, char *err, size_t len) {
  const uint64_t esize = npy_dtype_size(in->dtype);
  if (i > in->count)
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: seek past the data (internal error)", in->path);
  if (fseeko(in->f, (off_t)(in->data_offset + i * esize), SEEK_SET) != 0)
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: seek error: %s", in->path, strerror(errno));
  in->done = i * esize;
  return CLI_EXIT_OK;
}

int cli_input_read(cli_input *in, void *buf, size_t bytes, char *err, size_t len) {
  if (bytes > in->bytes - in->done)
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: read past the data (internal error)", in->path);
  const size_t got = fread(buf, 1, bytes, in->f);
  if (got != bytes) {
    if (feof(in->f))
      return cli_error(CLI_EXIT_FORMAT, err, len,
                       "%s: truncated data: the file ended after %llu bytes", in->path,
                       (unsigned long long)(in->done + got));
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: read error: %s", in->path, strerror(errno));
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
    return cli_error(CLI_EXIT_FORMAT, err, len, "%s: %llu edge(s); at least 2 are needed (one bin)",
                     path, (unsigned long long)count);
  if (count - 1 > UINT32_MAX)
    return cli_error(CLI_EXIT_FORMAT, err, len, "%s: more than 2^32 - 1 bins", path);
  for (uint64_t i = 0; i < count; ++i) {
    if (!isfinite(e[i]))
      return cli_error(CLI_EXIT_FORMAT, err, len, "%s: edge %llu is not finite", path,
                       (unsigned long long)i);
    if (i > 0 && !(e[i - 1] < e[i]))
      return cli_error(
          CLI_EXIT_FORMAT, err, len,
          "%s: edges must be strictly increasing: edge %llu (%.17g) <= edge %llu (%.17g)", path,
          (unsigned long long)i, e[i], (unsigned long long)(i - 1), e[i - 1]);
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
    return cli_error(CLI_EXIT_FORMAT, err, len, "%s: %llu edges are too many", path,
                     (unsigned long long)h.count);
  const size_t esize = npy_dtype_size(h.dtype);
  unsigned char *raw = (unsigned char *)malloc(h.count ? (size_t)h.count * esize : 1);
  double *e = (double *)malloc(h.count ? (size_t)h.count * sizeof(double) : 1);
  if (!raw || !e) {
    free(raw);
    free(e);
    return cli_error(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
  }
  if (fread(raw, esize, (size_t)h.count, f) != (size_t)h.count) {
    free(raw);
    free(e);
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: read error: %s", path, strerror(errno));
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
    return cli_error(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
  if (fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    return cli_error(CLI_EXIT_INPUT, err, len, "%s: read error: %s", path, strerror(errno));
  }
  text[size] = '\0';
  /* A NUL byte would end the text early and silently: the rest of the file would be ignored. */
  const char *nul = (const char *)memchr(text, '\0', (size_t)size);
  if (nul) {
    const int rc = cli_error(CLI_EXIT_FORMAT, err, len,
                             "%s: a NUL byte at offset %llu: not a text file of numbers (a .npy "
                             "file of edges starts with the \\x93NUMPY magic)",
                             path, (unsigned long long)(nul - text));
    free(text);
    return rc;
  }
  uint64_t cap = 64, n = 0, line = 1;
  double *e = (double *)malloc(cap * sizeof(double));
  int rc = e ? CLI_EXIT_OK : cli_error(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
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
        char shown[96]; /* the file's bytes, escaped */
        rc = cli_error(CLI_EXIT_FORMAT, err, len, "%s: line %llu: '%s' is not a finite number",
                       path, (unsigned long long)line,
                       npy_escape(start, strlen(start), shown, sizeof shown));
        break;
      }
      *p = saved;
      if (n == MAX_EDGES) {
        rc = cli_error(CLI_EXIT_FORMAT, err, len, "%s: too many edges", path);
        break;
      }
      if (n == cap) {
        double *grown = (double *)realloc(e, 2 * cap * sizeof(double));
        if (!grown) {
          rc = cli_error(CLI_EXIT_FAILED, err, len, "%s: out of host memory", path);
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

enum { MAX_LINKS = 40 }; /* Linux's limit on symbolic links followed in one lookup */

/* *target (malloc'd) = path with its symbolic links followed to the end: the file that is written
 * in place of the link, so that the link stays a link. A path that is not a link, or a link whose
 * target does not exist yet, is returned as the name to create. */
static int resolve_links(const char *path, char **target, char *err, size_t len) {
  char *cur = strdup(path);
  for (int hops = 0; cur; ++hops) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
      *target = cur;
      return CLI_EXIT_OK;
    }
    if (hops == MAX_LINKS) {
      free(cur);
      return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: %s", path, strerror(ELOOP));
    }
    char link[4096];
    const ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0) {
      const int e = errno;
      free(cur);
      return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: %s", path, strerror(e));
    }
    link[n] = '\0';
    /* A relative target is relative to the directory that holds the link. */
    const char *slash = strrchr(cur, '/');
    const size_t dir_len = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
    char *next = (char *)malloc(dir_len + (size_t)n + 1);
    if (next) {
      memcpy(next, cur, dir_len);
      memcpy(next + dir_len, link, (size_t)n + 1);
    }
    free(cur);
    cur = next;
  }
  return cli_error(CLI_EXIT_FAILED, err, len, "out of host memory");
}

/* Writes go straight to f (standard output, or a file that is not a regular one). */
static int open_direct(cli_output *o, const char *path, int is_stdout, char *err, size_t len) {
  o->path = strdup(path);
  if (!o->path)
    return cli_error(CLI_EXIT_FAILED, err, len, "out of host memory");
  o->direct = 1;
  o->is_stdout = is_stdout;
  o->f = is_stdout ? stdout : fopen(path, "wb");
  if (!o->f) {
    const int e = errno;
    cli_output_abort(o);
    return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: %s", path, strerror(e));
  }
  return CLI_EXIT_OK;
}

int cli_output_open(cli_output *o, const char *path, char *err, size_t len) {
  memset(o, 0, sizeof *o);
  if (strcmp(path, "-") == 0)
    return open_direct(o, path, 1, err, len);
  /* What is there now, following links. A directory is refused here, before any device work
   * (rename would refuse it only at the end). Standard output under another name (/dev/stdout,
   * /proc/self/fd/1, or the file it is redirected to) is written as standard output: renaming a
   * new file onto it would leave the program's own stdout writing into the replaced file.
   * Anything else that is not a regular file (/dev/null, a FIFO, a terminal) cannot be replaced
   * by a rename: it is opened and written in place. */
  struct stat st, out_st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: is a directory", path);
    if (fstat(STDOUT_FILENO, &out_st) == 0 && st.st_dev == out_st.st_dev &&
        st.st_ino == out_st.st_ino)
      return open_direct(o, path, 1, err, len);
    if (!S_ISREG(st.st_mode))
      return open_direct(o, path, 0, err, len);
  } else if (errno != ENOENT) {
    return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: %s", path, strerror(errno));
  }

  /* A regular file, or one to create: written to a temporary in the directory of the final
   * target (through any links, so that a link stays a link), renamed onto it when complete. */
  int rc = resolve_links(path, &o->path, err, len);
  if (rc)
    return rc;
  const char *target = o->path;
  const char *slash = strrchr(target, '/');
  const size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
  const char *base = slash ? slash + 1 : target;
  if (!*base) {
    cli_output_abort(o);
    return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: not a file name", path);
  }
  /* ".<name>.tmp-XXXXXX", with the name cut so that the temporary fits the file system's limit
   * on a name (NAME_MAX, 255 on Linux) whenever the output's own name does. */
  static const char suffix[] = ".tmp-XXXXXX";
  char dir[4096] = ".";
  if (dir_len && dir_len < sizeof dir)
    snprintf(dir, sizeof dir, "%.*s", (int)dir_len, target);
  const long name_max = pathconf(dir, _PC_NAME_MAX);
  const size_t limit = name_max > 0 ? (size_t)name_max : 255;
  size_t keep = strlen(base);
  if (1 + keep + (sizeof suffix - 1) > limit)
    keep = limit > sizeof suffix ? limit - sizeof suffix : 1; /* 1 + keep + suffix == limit */
  const size_t tmp_len = dir_len + 1 + keep + sizeof suffix;
  o->tmp_path = (char *)malloc(tmp_len);
  if (!o->tmp_path) {
    cli_output_abort(o);
    return cli_error(CLI_EXIT_FAILED, err, len, "out of host memory");
  }
  snprintf(o->tmp_path, tmp_len, "%.*s.%.*s%s", (int)dir_len, target, (int)keep, base, suffix);
  install_handlers();
  const int fd = mkstemp(o->tmp_path);
  if (fd < 0) {
    const int e = errno;
    free(o->tmp_path);
    o->tmp_path = NULL;
    cli_output_abort(o);
    return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: cannot create a file there: %s", path,
                     strerror(e));
  }
  pending_tmp = o->tmp_path;
  /* mkstemp makes the file 0600. A file that is replaced keeps its permissions; a new one gets
   * 0666 less the umask, as fopen's would. */
  mode_t mode;
  if (stat(target, &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "wb"))) {
    const int e = errno;
    if (!o->f)
      close(fd);
    cli_output_abort(o);
    return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: %s", path, strerror(e));
  }
  return CLI_EXIT_OK;
}

int cli_output_write(cli_output *o, const void *buf, size_t bytes, char *err, size_t len) {
  if (bytes && fwrite(buf, 1, bytes, o->f) != bytes)
    return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: write error: %s", o->path, strerror(errno));
  return CLI_EXIT_OK;
}

int cli_output_write_elements(cli_output *o, const void *buf, size_t bytes, char *err, size_t len) {
  if (!o->csv)
    return cli_output_write(o, buf, bytes, err, len);
  const size_t size = cuprim_dtype_size(o->csv_dtype);
  for (size_t off = 0; size && off + size <= bytes; off += size) {
    char text[64];
    hr_format_value(o->csv_dtype, (const char *)buf + off, text, sizeof text);
    if (fprintf(o->f, "%s\n", text) < 0)
      return cli_error(CLI_EXIT_OUTPUT, err, len, "%s: write error: %s", o->path, strerror(errno));
  }
  return CLI_EXIT_OK;
}

int cli_output_commit(cli_output *o, char *err, size_t len) {
  FILE *f = o->f;
  o->f = NULL;
  const int flush_failed = fflush(f) != 0;
  const int e1 = errno;
  const int close_failed = !o->is_stdout && fclose(f) != 0; /* stdout stays open for main */
  const int e2 = errno;
  if (flush_failed || close_failed) {
    const int rc = cli_error(CLI_EXIT_OUTPUT, err, len, "%s: write error: %s", o->path,
                             strerror(flush_failed ? e1 : e2));
    cli_output_abort(o);
    return rc;
  }
  if (!o->direct && rename(o->tmp_path, o->path) != 0) {
    const int e = errno;
    const int rc = cli_error(CLI_EXIT_OUTPUT, err, len, "%s: cannot rename %s into place: %s",
                             o->path, o->tmp_path, strerror(e));
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
  if (o->f && !o->is_stdout)
    fclose(o->f);
  if (o->tmp_path) {
    pending_tmp = NULL;
    unlink(o->tmp_path);
  }
  free(o->tmp_path);
  free(o->path);
  memset(o, 0, sizeof *o);
}
