/* tools/npy.h: the NumPy .npy format, read and written for the cuprim program (plain C11, no CUDA
 * calls; cuprim/core.h is included only for the cuprim_dtype enum).
 *
 * A .npy file is a preamble, a header and the raw data:
 *   "\x93NUMPY", major and minor version bytes, the header length (2 bytes little-endian in
 *   version 1.0, 4 bytes in 2.0 and 3.0), then the header: a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and ending in
 *   '\n'. The data follows, count * itemsize bytes, where count is the product of the shape
 *   (1 for the 0-d shape ()).
 * Read: versions 1.0, 2.0, 3.0; little-endian (or byte-order-free) 'i', 'u' and 'f' dtypes that
 * match one of cuprim's dtypes (i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8: every one but bfloat16, which
 * NumPy has no descr for); C order; any shape (the caller flattens it). The file size must be
 * exactly what the header says: shorter is truncated, longer is a shape that does not match.
 * Everything else is rejected with a status and a one-line detail.
 * Written: version 1.0 (2.0 when the header does not fit 1.0's 16-bit length), C order, the
 * header padded so that the data starts at a multiple of 64 bytes, as NumPy writes it. */
#ifndef CUPRIM_TOOLS_NPY_H
#define CUPRIM_TOOLS_NPY_H

#include <cuprim/core.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's own limit on dimensions (NPY_MAXDIMS: 32 before NumPy 2.0, 64 since). */
enum { NPY_MAX_DIMS = 64 };

/* Headers longer than this are refused (NumPy's loader refuses anything past 10000 bytes by
 * default; this is generous and keeps a hostile length from allocating gigabytes). */
enum { NPY_MAX_HEADER_BYTES = 1 << 20 };

typedef enum npy_status {
  NPY_OK = 0,
  NPY_ERR_IO,               /* a read or write failed (errno tells why) */
  NPY_ERR_MAGIC,            /* the file does not start with "\x93NUMPY" */
  NPY_ERR_VERSION,          /* a format version other than 1.0, 2.0 and 3.0 */
  NPY_ERR_HEADER_TRUNCATED, /* the file ends inside the preamble or the header */
  NPY_ERR_HEADER,           /* the header is not the dict the format prescribes */
  NPY_ERR_BIG_ENDIAN,       /* a big-endian dtype ('>f4') */
  NPY_ERR_FORTRAN,          /* fortran_order True */
  NPY_ERR_DTYPE,            /* a dtype that is none of cuprim's ('<c8', '|O', structured) */
  NPY_ERR_TOO_LARGE,        /* the element count or byte size does not fit 64 bits */
  NPY_ERR_TRUNCATED,        /* fewer data bytes than the shape needs */
  NPY_ERR_SIZE_MISMATCH     /* more data bytes than the shape needs */
} npy_status;

/* A short English description of s ("truncated data", ...); never NULL. */
const char *npy_status_string(npy_status s);

typedef struct npy_header {
  unsigned major, minor; /* format version */
  cuprim_dtype dtype;
  unsigned ndim;
  uint64_t shape[NPY_MAX_DIMS];
  uint64_t count;       /* elements: the product of the shape, 1 for 0-d */
  uint64_t data_offset; /* bytes from the start of the file to the first element */
} npy_header;

/* Parses the preamble and header held in buf[0..len) (the first len bytes of a file). Checks
 * everything but the data's size: NPY_ERR_HEADER_TRUNCATED if len ends before the header does.
 * On NPY_OK, *h is filled; on error, detail[0..detail_len) receives one line saying what is wrong
 * (detail may be NULL). */
npy_status npy_parse(const void *buf, size_t len, npy_header *h, char *detail, size_t detail_len);

/* Reads the header of the .npy file f, positioned at its start, whose size is file_size bytes,
 * and checks that the data is exactly count * itemsize bytes. On NPY_OK, f is positioned at the
 * first element. On error, as npy_parse; NPY_ERR_IO leaves errno set. */
npy_status npy_read_header(FILE *f, uint64_t file_size, npy_header *h, char *detail,
                           size_t detail_len);

/* s[0..n), bytes of a file, made safe to print in a message into out[0..cap): printable ASCII
 * as it is, every other byte (control characters, terminal escape sequences, bytes past 0x7e)
 * and the backslash as \xNN. Cut with "..." when out is too small. Returns out. */
const char *npy_escape(const void *s, size_t n, char *out, size_t cap);

/* The descr NumPy writes for t: "|i1", "<u2", "<f4", ...; NULL for a value outside the enum. */
const char *npy_descr(cuprim_dtype t);
/* Bytes per element of t; 0 for a value outside the enum. (The same as cuprim_dtype_size, which
 * this file does not call, so that it links without the library.) */
size_t npy_dtype_size(cuprim_dtype t);

/* Formats the preamble and padded header for a C-order array of `dtype` and `shape` (ndim
 * dimensions, ndim <= NPY_MAX_DIMS) into buf[0..cap). Returns the header's total size (the data
 * offset: a multiple of 64), or 0 if the arguments are invalid or it does not fit cap. */
size_t npy_format_header(void *buf, size_t cap, cuprim_dtype dtype, unsigned ndim,
                         const uint64_t *shape);

/* Writes that header to f. Returns NPY_OK or NPY_ERR_IO (errno set), NPY_ERR_DTYPE or
 * NPY_ERR_HEADER for invalid arguments. */
npy_status npy_write_header(FILE *f, cuprim_dtype dtype, unsigned ndim, const uint64_t *shape);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_NPY_H */
