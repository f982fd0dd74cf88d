/* tools/npy.c: the .npy reader and writer (see npy.h for the format and what is accepted).
 *
 * The header is parsed by a small recursive-descent parser for the subset of Python literals
 * that the format uses: a dict with string keys, a string, True/False and a tuple of integers.
 * It is strict where NumPy's loader is strict (exactly the three keys, a tuple for the shape,
 * a bool for fortran_order) and rejects anything else rather than guessing. */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The preamble: six magic bytes, two version bytes, then the header length. */
static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
enum {
  MAGIC_LEN = 6,
  PREAMBLE_V1 = 10, /* magic, 2 version bytes, 2-byte length */
  PREAMBLE_V2 = 12, /* magic, 2 version bytes, 4-byte length (versions 2.0 and 3.0) */
  DATA_ALIGN = 64   /* NumPy pads the header so that the data starts at a multiple of 64 */
};

const char *npy_status_string(npy_status s) {
  switch (s) {
  case NPY_OK:
    return "ok";
  case NPY_ERR_IO:
    return "read or write error";
  case NPY_ERR_MAGIC:
    return "not a .npy file (bad magic)";
  case NPY_ERR_VERSION:
    return "unsupported .npy format version";
  case NPY_ERR_HEADER_TRUNCATED:
    return "file ends inside the .npy header";
  case NPY_ERR_HEADER:
    return "malformed .npy header";
  case NPY_ERR_BIG_ENDIAN:
    return "big-endian data is not supported";
  case NPY_ERR_FORTRAN:
    return "Fortran-order arrays are not supported";
  case NPY_ERR_DTYPE:
    return "unsupported dtype";
  case NPY_ERR_TOO_LARGE:
    return "array too large";
  case NPY_ERR_TRUNCATED:
    return "truncated data";
  case NPY_ERR_SIZE_MISMATCH:
    return "file size does not match the shape";
  }
  return "unknown .npy status";
}

/* kind, itemsize and descr of each cuprim dtype, indexed by the enum value. bfloat16 has no
 * NumPy descr (ml_dtypes writes it as raw void bytes): it is read as raw binary with --dtype bf16
 * only, and cannot be written (kind 0: never matched, descr NULL). */
static const struct {
  char kind;
  size_t size;
  const char *descr;
} npy_types[] = {
    [CUPRIM_I8] = {'i', 1, "|i1"},  [CUPRIM_U8] = {'u', 1, "|u1"},  [CUPRIM_I16] = {'i', 2, "<i2"},
    [CUPRIM_U16] = {'u', 2, "<u2"}, [CUPRIM_I32] = {'i', 4, "<i4"}, [CUPRIM_U32] = {'u', 4, "<u4"},
    [CUPRIM_I64] = {'i', 8, "<i8"}, [CUPRIM_U64] = {'u', 8, "<u8"}, [CUPRIM_F32] = {'f', 4, "<f4"},
    [CUPRIM_F64] = {'f', 8, "<f8"}, [CUPRIM_F16] = {'f', 2, "<f2"}, [CUPRIM_BF16] = {0, 2, NULL},
};
enum { NPY_NUM_TYPES = sizeof npy_types / sizeof npy_types[0] };

const char *npy_descr(cuprim_dtype t) {
  return (unsigned)t < NPY_NUM_TYPES ? npy_types[t].descr : NULL;
}

size_t npy_dtype_size(cuprim_dtype t) {
  return (unsigned)t < NPY_NUM_TYPES ? npy_types[t].size : 0;
}

const char *npy_escape(const void *bytes, size_t n, char *out, size_t cap) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *b = (const unsigned char *)bytes;
  size_t used = 0;
  if (cap == 0)
    return out;
  for (size_t i = 0; i < n; ++i) {
    const int plain = b[i] >= 0x20 && b[i] < 0x7F && b[i] != '\\';
    const size_t need = plain ? 1 : 4;
    if (used + need + 4 > cap) { /* room for "..." and the terminator */
      memcpy(out + used, "...", 3);
      used += 3;
      break;
    }
    if (plain) {
      out[used++] = (char)b[i];
    } else {
      out[used++] = '\\';
      out[used++] = 'x';
      out[used++] = hex[b[i] >> 4];
      out[used++] = hex[b[i] & 15];
    }
  }
  out[used < cap ? used : cap - 1] = '\0';
  return out;
}

static void set_detail(char *detail, size_t len, const char *fmt, ...) {
  if (!detail || len == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, len, fmt, ap);
  va_end(ap);
}

/* ---------------------------------------------------------------- header parser */

typedef struct parser {
  const char *p, *end, *begin;
  char *detail;
  size_t detail_len;
} parser;

static npy_status fail(parser *ps, npy_status s, const char *what) {
  set_detail(ps->detail, ps->detail_len, "%s at header offset %ld", what,
             (long)(ps->p - ps->begin));
  return s;
}

static void skip_ws(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ++ps->p;
}

/* A quoted string without escapes (none of the format's strings has one) into out[0..cap). */
static npy_status parse_string(parser *ps, char *out, size_t cap) {
  if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
    return fail(ps, NPY_ERR_HEADER, "expected a quoted string");
  const char quote = *ps->p++;
  size_t n = 0;
  while (ps->p < ps->end && *ps->p != quote) {
    if (*ps->p == '\\')
      return fail(ps, NPY_ERR_HEADER, "unexpected escape in a string");
    if (n + 1 < cap)
      out[n] = *ps->p;
    ++n;
    ++ps->p;
  }
  if (ps->p >= ps->end)
    return fail(ps, NPY_ERR_HEADER, "unterminated string");
  ++ps->p; /* the closing quote */
  if (n + 1 > cap)
    return fail(ps, NPY_ERR_HEADER, "string too long");
  out[n] = '\0';
  return NPY_OK;
}

static int match_word(parser *ps, const char *word) {
  const size_t len = strlen(word);
  if ((size_t)(ps->end - ps->p) < len || memcmp(ps->p, word, len) != 0)
    return 0;
  /* A whole word: "Trueish" is not True. */
  if ((size_t)(ps->end - ps->p) > len) {
    const char c = ps->p[len];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
      return 0;
  }
  ps->p += len;
  return 1;
}

static npy_status parse_bool(parser *ps, int *out) {
  if (match_word(ps, "True"))
    *out = 1;
  else if (match_word(ps, "False"))
    *out = 0;
  else
    return fail(ps, NPY_ERR_HEADER, "expected True or False for 'fortran_order'");
  return NPY_OK;
}

/* A non-negative decimal integer, with Python 2's optional 'L' suffix. */
static npy_status parse_dim(parser *ps, uint64_t *out) {
  if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
    return fail(ps, NPY_ERR_HEADER, "expected a non-negative integer in 'shape'");
  uint64_t v = 0;
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
    const unsigned d = (unsigned)(*ps->p - '0');
    if (v > (UINT64_MAX - d) / 10)
      return fail(ps, NPY_ERR_TOO_LARGE, "a dimension does not fit 64 bits");
    v = v * 10 + d;
    ++ps->p;
  }
  if (ps->p < ps->end && *ps->p == 'L')
    ++ps->p;
  *out = v;
  return NPY_OK;
}

/* A tuple of integers: (), (n,), (n, m), (n, m,). A one-element tuple needs its comma. */
static npy_status parse_shape(parser *ps, npy_header *h) {
  if (ps->p >= ps->end || *ps->p != '(')
    return fail(ps, NPY_ERR_HEADER, "expected a tuple for 'shape'");
  ++ps->p;
  h->ndim = 0;
  int trailing_comma = 0;
  for (;;) {
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ')') {
      ++ps->p;
      break;
    }
    if (h->ndim == NPY_MAX_DIMS)
      return fail(ps, NPY_ERR_HEADER, "more dimensions than NumPy allows");
    npy_status s = parse_dim(ps, &h->shape[h->ndim]);
    if (s != NPY_OK)
      return s;
    ++h->ndim;
    skip_ws(ps);
    trailing_comma = 0;
    if (ps->p < ps->end && *ps->p == ',') {
      ++ps->p;
      trailing_comma = 1;
    } else if (ps->p >= ps->end || *ps->p != ')') {
      return fail(ps, NPY_ERR_HEADER, "expected ',' or ')' in 'shape'");
    }
  }
  if (h->ndim == 1 && !trailing_comma)
    return fail(ps, NPY_ERR_HEADER, "'shape' (n) is not a tuple: write (n,)");
  return NPY_OK;
}

/* descr: [byte order] kind itemsize, e.g. '<f4'. Checked after the whole dict has parsed, so that
 * a syntax error is reported as such even when it follows an unsupported descr. The descr comes
 * escaped (npy_escape): a printable one is unchanged, and any other does not parse. */
static npy_status check_descr(parser *ps, const char *descr, cuprim_dtype *out) {
  const char *d = descr;
  char order = '=';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
    order = *d++;
  const char kind = *d ? *d++ : '\0';
  char *end = NULL;
  errno = 0;
  const unsigned long size = (*d >= '0' && *d <= '9') ? strtoul(d, &end, 10) : 0;
  const int well_formed = end && *end == '\0' && errno == 0;
  for (unsigned t = 0; well_formed && t < NPY_NUM_TYPES; ++t) {
    if (!npy_types[t].kind || npy_types[t].kind != kind || npy_types[t].size != size)
      continue;
    /* One-byte types have no byte order, whatever character the writer put there. */
    if (order == '>' && size > 1) {
      set_detail(ps->detail, ps->detail_len,
                 "dtype '%s' is big-endian; convert it with a.astype(a.dtype.newbyteorder('<'))",
                 descr);
      return NPY_ERR_BIG_ENDIAN;
    }
    *out = (cuprim_dtype)t;
    return NPY_OK;
  }
  set_detail(ps->detail, ps->detail_len,
             "dtype '%s' is not one of i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8", descr);
  return NPY_ERR_DTYPE;
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4, KEY_ALL = 7 };

static npy_status parse_dict(parser *ps, npy_header *h) {
  int seen = 0, fortran = 0;
  char descr[32] = "";
  skip_ws(ps);
  if (ps->p >= ps->end || *ps->p != '{')
    return fail(ps, NPY_ERR_HEADER, "expected '{'");
  ++ps->p;
  for (;;) {
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}')
      break;
    char key[32];
    npy_status s = parse_string(ps, key, sizeof key);
    if (s != NPY_OK)
      return s;
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != ':')
      return fail(ps, NPY_ERR_HEADER, "expected ':' after a key");
    ++ps->p;
    skip_ws(ps);
    int bit;
    if (strcmp(key, "descr") == 0) {
      bit = KEY_DESCR;
      if (ps->p < ps->end && *ps->p == '[')
        return fail(ps, NPY_ERR_DTYPE, "structured dtype (a list of fields)");
      s = parse_string(ps, descr, sizeof descr);
    } else if (strcmp(key, "fortran_order") == 0) {
      bit = KEY_FORTRAN;
      s = parse_bool(ps, &fortran);
    } else if (strcmp(key, "shape") == 0) {
      bit = KEY_SHAPE;
      s = parse_shape(ps, h);
    } else {
      char shown[4 * sizeof key + 4];
      set_detail(ps->detail, ps->detail_len, "unexpected key '%s' in the header",
                 npy_escape(key, strlen(key), shown, sizeof shown));
      return NPY_ERR_HEADER;
    }
    if (s != NPY_OK)
      return s;
    if (seen & bit) {
      set_detail(ps->detail, ps->detail_len, "key '%s' appears twice in the header", key);
      return NPY_ERR_HEADER;
    }
    seen |= bit;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ++ps->p;
      continue;
    }
    if (ps->p < ps->end && *ps->p == '}')
      break;
    return fail(ps, NPY_ERR_HEADER, "expected ',' or '}'");
  }
  ++ps->p; /* '}' */
  skip_ws(ps);
  if (ps->p != ps->end)
    return fail(ps, NPY_ERR_HEADER, "unexpected text after the header's dict");
  if (seen != KEY_ALL) {
    set_detail(ps->detail, ps->detail_len, "the header lacks the key '%s'",
               !(seen & KEY_DESCR)     ? "descr"
               : !(seen & KEY_FORTRAN) ? "fortran_order"
                                       : "shape");
    return NPY_ERR_HEADER;
  }
  char shown[4 * sizeof descr + 4]; /* the descr as it may be printed */
  npy_escape(descr, strlen(descr), shown, sizeof shown);
  const npy_status s = check_descr(ps, shown, &h->dtype);
  if (s != NPY_OK)
    return s;
  if (fortran) {
    set_detail(ps->detail, ps->detail_len,
               "fortran_order is True; save a C-order copy (np.ascontiguousarray)");
    return NPY_ERR_FORTRAN;
  }
  return NPY_OK;
}

/* ---------------------------------------------------------------- reading */

npy_status npy_parse(const void *buf, size_t len, npy_header *h, char *detail, size_t detail_len) {
  const unsigned char *b = (const unsigned char *)buf;
  set_detail(detail, detail_len, "%s", "");
  if (len < MAGIC_LEN + 2) {
    if (memcmp(b, npy_magic, len < MAGIC_LEN ? len : MAGIC_LEN) != 0) {
      set_detail(detail, detail_len, "the file does not start with \\x93NUMPY");
      return NPY_ERR_MAGIC;
    }
    set_detail(detail, detail_len, "the file ends after %zu bytes, inside the preamble", len);
    return NPY_ERR_HEADER_TRUNCATED;
  }
  if (memcmp(b, npy_magic, MAGIC_LEN) != 0) {
    set_detail(detail, detail_len, "the file does not start with \\x93NUMPY");
    return NPY_ERR_MAGIC;
  }
  const unsigned major = b[6], minor = b[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0)) {
    set_detail(detail, detail_len, "format version %u.%u (1.0, 2.0 and 3.0 are supported)", major,
               minor);
    return NPY_ERR_VERSION;
  }
  const size_t preamble = major == 1 ? PREAMBLE_V1 : PREAMBLE_V2;
  if (len < preamble) {
    set_detail(detail, detail_len, "the file ends after %zu bytes, inside the preamble", len);
    return NPY_ERR_HEADER_TRUNCATED;
  }
  uint64_t header_len = (uint64_t)b[8] | (uint64_t)b[9] << 8;
  if (major > 1)
    header_len |= (uint64_t)b[10] << 16 | (uint64_t)b[11] << 24;
  if (header_len > NPY_MAX_HEADER_BYTES) {
    set_detail(detail, detail_len, "header length %llu is past the limit of %d bytes",
               (unsigned long long)header_len, NPY_MAX_HEADER_BYTES);
    return NPY_ERR_HEADER;
  }
  if (len - preamble < header_len) {
    set_detail(detail, detail_len,
               "the header length (%llu bytes) goes past the end of the file (%zu bytes)",
               (unsigned long long)header_len, len);
    return NPY_ERR_HEADER_TRUNCATED;
  }
  npy_header tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.major = major;
  tmp.minor = minor;
  tmp.data_offset = preamble + header_len;
  parser ps = {(const char *)b + preamble, (const char *)b + preamble + header_len,
               (const char *)b + preamble, detail, detail_len};
  npy_status s = parse_dict(&ps, &tmp);
  if (s != NPY_OK)
    return s;
  tmp.count = 1;
  for (unsigned i = 0; i < tmp.ndim; ++i) {
    if (tmp.shape[i] != 0 && tmp.count > UINT64_MAX / tmp.shape[i]) {
      set_detail(detail, detail_len, "the shape's element count does not fit 64 bits");
      return NPY_ERR_TOO_LARGE;
    }
    tmp.count *= tmp.shape[i];
  }
  const size_t size = npy_types[tmp.dtype].size;
  if (tmp.count > (UINT64_MAX - tmp.data_offset) / size) {
    set_detail(detail, detail_len, "the shape's byte size does not fit 64 bits");
    return NPY_ERR_TOO_LARGE;
  }
  *h = tmp;
  return NPY_OK;
}

npy_status npy_read_header(FILE *f, uint64_t file_size, npy_header *h, char *detail,
                           size_t detail_len) {
  unsigned char pre[PREAMBLE_V2];
  const size_t want = file_size < sizeof pre ? (size_t)file_size : sizeof pre;
  if (fread(pre, 1, want, f) != want) {
    set_detail(detail, detail_len, "reading the preamble: %s", strerror(errno));
    return NPY_ERR_IO;
  }
  /* The preamble alone says how long the header is: parse it with what we have, which fails
   * with HEADER_TRUNCATED exactly when the header lies past `want` bytes. */
  npy_header tmp;
  npy_status s = npy_parse(pre, want, &tmp, detail, detail_len);
  if (s == NPY_OK) {
    *h = tmp; /* an empty header cannot be valid, but keep the logic uniform */
  } else if (s != NPY_ERR_HEADER_TRUNCATED || want < sizeof pre) {
    return s;
  } else {
    const size_t preamble = pre[6] == 1 ? PREAMBLE_V1 : PREAMBLE_V2;
    uint64_t header_len = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
    if (pre[6] > 1)
      header_len |= (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
    const uint64_t total = preamble + header_len;
    if (total > file_size) {
      set_detail(detail, detail_len,
                 "the header length (%llu bytes) goes past the end of the file (%llu bytes)",
                 (unsigned long long)header_len, (unsigned long long)file_size);
      return NPY_ERR_HEADER_TRUNCATED;
    }
    unsigned char *buf = (unsigned char *)malloc((size_t)total);
    if (!buf) {
      set_detail(detail, detail_len, "cannot allocate %llu bytes for the header",
                 (unsigned long long)total);
      return NPY_ERR_IO;
    }
    memcpy(buf, pre, sizeof pre);
    if (fread(buf + sizeof pre, 1, (size_t)total - sizeof pre, f) != (size_t)total - sizeof pre) {
      set_detail(detail, detail_len, "reading the header: %s", strerror(errno));
      free(buf);
      return NPY_ERR_IO;
    }
    s = npy_parse(buf, (size_t)total, &tmp, detail, detail_len);
    free(buf);
    if (s != NPY_OK)
      return s;
  }
  const uint64_t data_bytes = tmp.count * npy_types[tmp.dtype].size; /* checked by npy_parse */
  const uint64_t have = file_size - tmp.data_offset;
  if (have < data_bytes) {
    set_detail(detail, detail_len,
               "the shape needs %llu data bytes, the file holds %llu after the header",
               (unsigned long long)data_bytes, (unsigned long long)have);
    return NPY_ERR_TRUNCATED;
  }
  if (have > data_bytes) {
    set_detail(detail, detail_len,
               "the shape needs %llu data bytes, the file holds %llu after the header",
               (unsigned long long)data_bytes, (unsigned long long)have);
    return NPY_ERR_SIZE_MISMATCH;
  }
  if (fseek(f, (long)tmp.data_offset, SEEK_SET) != 0) {
    set_detail(detail, detail_len, "seeking to the data: %s", strerror(errno));
    return NPY_ERR_IO;
  }
  *h = tmp;
  return NPY_OK;
}

/* ---------------------------------------------------------------- writing */

size_t npy_format_header(void *buf, size_t cap, cuprim_dtype dtype, unsigned ndim,
                         const uint64_t *shape) {
  if ((unsigned)dtype >= NPY_NUM_TYPES || !npy_types[dtype].descr || ndim > NPY_MAX_DIMS ||
      (ndim && !shape))
    return 0;
  /* The dict: the keys take 56 bytes, and 64 dimensions of at most 20 digits and ", " each
   * 1408 more; 128 bytes of slack. */
  char dict[128 + NPY_MAX_DIMS * 22];
  int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     npy_types[dtype].descr);
  for (unsigned i = 0; i < ndim && len > 0 && (size_t)len < sizeof dict; ++i)
    len += snprintf(dict + len, sizeof dict - (size_t)len, "%s%llu", i ? ", " : "",
                    (unsigned long long)shape[i]);
  if (len > 0 && (size_t)len < sizeof dict)
    len += snprintf(dict + len, sizeof dict - (size_t)len, "%s), }", ndim == 1 ? "," : "");
  if (len <= 0 || (size_t)len >= sizeof dict)
    return 0;
  /* Spaces, then '\n', up to the next multiple of DATA_ALIGN. Version 1.0's 16-bit length holds
   * any header this writes; 2.0 is kept for a longer one. */
  size_t preamble = PREAMBLE_V1;
  size_t total = (preamble + (size_t)len + 1 + DATA_ALIGN - 1) / DATA_ALIGN * DATA_ALIGN;
  unsigned major = 1;
  if (total - preamble > 0xFFFF) {
    preamble = PREAMBLE_V2;
    total = (preamble + (size_t)len + 1 + DATA_ALIGN - 1) / DATA_ALIGN * DATA_ALIGN;
    major = 2;
  }
  if (total > cap)
    return 0;
  unsigned char *b = (unsigned char *)buf;
  const size_t header_len = total - preamble;
  memcpy(b, npy_magic, MAGIC_LEN);
  b[6] = (unsigned char)major;
  b[7] = 0;
  b[8] = (unsigned char)(header_len & 0xFF);
  b[9] = (unsigned char)(header_len >> 8 & 0xFF);
  if (major > 1) {
    b[10] = (unsigned char)(header_len >> 16 & 0xFF);
    b[11] = (unsigned char)(header_len >> 24 & 0xFF);
  }
  memcpy(b + preamble, dict, (size_t)len);
  memset(b + preamble + len, ' ', total - preamble - (size_t)len - 1);
  b[total - 1] = '\n';
  return total;
}

npy_status npy_write_header(FILE *f, cuprim_dtype dtype, unsigned ndim, const uint64_t *shape) {
  if ((unsigned)dtype >= NPY_NUM_TYPES)
    return NPY_ERR_DTYPE;
  unsigned char buf[256 + NPY_MAX_DIMS * 22]; /* the dict's buffer plus preamble and padding */
  const size_t total = npy_format_header(buf, sizeof buf, dtype, ndim, shape);
  if (total == 0)
    return NPY_ERR_HEADER;
  if (fwrite(buf, 1, total, f) != total)
    return NPY_ERR_IO;
  return NPY_OK;
}
