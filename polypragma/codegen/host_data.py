"""The data layer of the GPU targets' runtime: device buffers reused across calls, and arrays that stay on
the device between regions (``#pragma polypragma data``), never stale.

Written once in C for both targets over seven primitives each target defines before it (CUDA in
cuda_target.py, OpenCL in opencl_target.py): ``polypragma_buffer_get``/``_put`` (a device buffer from
the pool of free buffers kept by size), ``polypragma_upload``/``_download`` (checked copies, staged
through pinned memory when large) and ``polypragma_direct`` (whether the kernels may reach a host array
in place: CUDA's managed memory, or host memory on a device with pageable memory access), and
``polypragma_pin``/``_unpin`` (page-lock a kept array's host range for its scope's life, where the target
and the copy method say so: its copies then run at the link's pinned speed without staging).  Each primitive reports its own failure through the target's
failure handler (host.py's ``fail``, which decides from the phase whether the caller may fall back) and
returns that status: 0 when the region may go on.

**The present table.**  One table per process (a weak symbol: every generated file of the program, of
either target, shares it) of host ranges whose device copy a data scope keeps.  Each entry records
which copy is current:

* ``HOST``: the host copy is newer (or the only one): a region using it uploads it first;
* ``DEVICE``: the device copy is newer: the host copy is stale until an ``update host`` or the end of
  the scope downloads it;
* ``BOTH``: the two are equal.

Every way data can move goes through the states: a region using an entry in place uploads a ``HOST``
entry first and leaves what it wrote ``DEVICE``; a region of another file, a region whose array only
partly overlaps an entry, and a region that falls back to its original loops first bring the host copy
up to date (downloading a ``DEVICE`` entry through the owner's ``download`` hook) and leave what they
wrote ``HOST``; ``update device`` marks an entry ``HOST`` (the next region uploads it), ``update host``
downloads a ``DEVICE`` entry; the end of the scope downloads a ``DEVICE`` entry, whatever the clause
said, so the host ends with every result whether the device ran the regions or not.  So a region never
computes from a stale device copy, as long as host code in the scope that touches a scope's array does
so between ``update host`` and ``update device`` (README: "Data that stays on the device").

A failure in a region falls back to the original loops with nothing lost unless the region had already
launched a kernel writing an array whose only current copy was the device's (then the program stops,
as a failure during the copy-out does); a failed download of a ``DEVICE`` entry is fatal for the same
reason.  The table is not thread-safe, as the rest of the runtime.

**Rows through pointers** (``double **A``, gpu/data.py) have no host range of their own: the rows the region
touches are packed into one host buffer laid out as their dense device copy and cross in one copy each way
(``polypragma_row_pack``/``_unpack`` and ``polypragma_rows_cross``, over the same primitives), each row's
elements brought up to date through the table first, and a written row leaves any entry it lies in ``HOST``.
So a data scope keeping the array the rows lie in stays right, with copies.
"""

from __future__ import annotations

from string import Template

# the kinds of clause, in the order of the C enum
CLAUSES = ("copy", "copyin", "copyout", "create")

_TYPES = r"""
/* Arrays kept on the device by data scopes, shared by every generated file of the process (see
   polypragma/codegen/host_data.py).  Each file reaches its own entries' buffers; another file's entries
   it brings to the host through their download hook. */
#ifndef POLYPRAGMA_DATA_TYPES
#define POLYPRAGMA_DATA_TYPES
enum { POLYPRAGMA_HOST = 1, POLYPRAGMA_DEVICE = 2, POLYPRAGMA_BOTH = 3 };
enum { POLYPRAGMA_COPY, POLYPRAGMA_COPYIN, POLYPRAGMA_COPYOUT, POLYPRAGMA_CREATE };
#define POLYPRAGMA_TABLE_SIZE 64
#define POLYPRAGMA_UNUSED __attribute__((unused))
typedef struct polypragma_entry {
  char *host;       /* NULL: a free slot */
  size_t bytes;
  void *buffer;     /* the owner's device buffer (a pointer, or a cl_mem) */
  int state;        /* POLYPRAGMA_HOST, _DEVICE or _BOTH */
  int depth;        /* scopes holding it */
  int pinned;       /* the owner page-locked the host range for the scope (polypragma_pin) */
  int kept;         /* made by the owner's keep scopes (0: by a data scope) */
  const void *owner;
  int (*download)(struct polypragma_entry *entry, const char *where);  /* the owner's; 0 on success */
} polypragma_entry;
typedef struct { polypragma_entry entries[POLYPRAGMA_TABLE_SIZE]; } polypragma_table_t;
/* one clause of a data scope, as the scope's code passes it */
typedef struct { void *host; size_t bytes; int kind; int entered; const char *name; } polypragma_data_clause;
#endif
"""

_RUNTIME = Template(r"""
#ifndef POLYPRAGMA_TABLE_DEFINED
#define POLYPRAGMA_TABLE_DEFINED
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((weak)) polypragma_table_t polypragma_data_table;
#ifdef __cplusplus
}
#endif
#endif

/* a region's array on the device: in place in an entry of this file, or a buffer of the pool */
typedef struct {
  void *buffer;      /* the device buffer (the entry's, or one from the pool) */
  size_t offset;     /* of the array in it, in bytes */
  polypragma_entry *entry;  /* in place: the entry; NULL: a pool buffer */
  int upload;        /* what fill copies: 0 nothing, 1 the array, 2 the whole entry */
  int direct;        /* the kernels reach the host array itself (no buffer, no copies) */
  size_t bytes;
} polypragma_binding$s;

static POLYPRAGMA_UNUSED char polypragma_data_owner$s;  /* its address tells this file's entries from others' */
static POLYPRAGMA_UNUSED int polypragma_keeping$s;  /* the keep scopes of this file open (polypragma_keep) */

/* POLYPRAGMA_DATA=copy: data scopes keep nothing on the device (every region copies, as without them) */
static POLYPRAGMA_UNUSED int polypragma_scopes_on$s(void)
{
  static int on = -1;
  if (on < 0) {
    const char *value = getenv("POLYPRAGMA_DATA");
    on = !(value != NULL && strcmp(value, "copy") == 0);
  }
  return on;
}

static POLYPRAGMA_UNUSED int polypragma_overlaps$s(const polypragma_entry *e, const char *host, size_t bytes)
{
  return e->host != NULL && bytes > 0 && host < e->host + e->bytes && e->host < host + bytes;
}

/* the download hook of this file's entries */
static POLYPRAGMA_UNUSED int polypragma_entry_download$s(polypragma_entry *e, const char *where)
{
  return polypragma_download$s(e->host, e->buffer, 0, e->bytes, "a data scope's array", where, POLYPRAGMA_COPYING_OUT);
}

/* Bring the host copy of entry "e" up to date; with "written", the host is about to change it (it becomes
   HOST).  Nonzero: the download failed (reported; fatal unless in a library). */
static POLYPRAGMA_UNUSED int polypragma_entry_current$s(polypragma_entry *e, int written, const char *where)
{
  if (e->state == POLYPRAGMA_DEVICE) {
    int s = e->download(e, where);
    if (s != 0)
      return s;
    e->state = POLYPRAGMA_BOTH;
  }
  if (written)
    e->state = POLYPRAGMA_HOST;
  return 0;
}

/* The same for every entry overlapping [host, host + bytes). */
static POLYPRAGMA_UNUSED int polypragma_host_current$s(const void *host, size_t bytes, int written, const char *where)
{
  int status = 0;
  if (host == NULL)
    return 0;
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {
    polypragma_entry *e = &polypragma_data_table.entries[k];
    if (polypragma_overlaps$s(e, (const char *)host, bytes)) {
      int s = polypragma_entry_current$s(e, written, where);
      status = s != 0 ? s : status;
    }
  }
  return status;
}

/* The same for every entry: before the original loops of a region run outside its model, which then
   bounds none of their accesses (Scop.assumed). */
static POLYPRAGMA_UNUSED int polypragma_every_current$s(int written, const char *where)
{
  int status = 0;
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {
    polypragma_entry *e = &polypragma_data_table.entries[k];
    if (e->host != NULL) {
      int s = polypragma_entry_current$s(e, written, where);
      status = s != 0 ? s : status;
    }
  }
  return status;
}

/* Find the device buffer of a region's array [host, host + bytes): in place in an entry of this file
   that holds all of it (at an offset that is a multiple of "align"; 0: offset 0 only), else a buffer of
   the pool, after bringing the host copy of any entry it overlaps up to date.  "copy_in": the region
   reads the array's values on entry (or may not write all of it); "direct": the kernels may reach the host
   array in place, where the device can (not through a texture). */
/* An entry given up: its buffer back to the pool, its host range unpinned, its slot free. */
static POLYPRAGMA_UNUSED void polypragma_entry_release$s(polypragma_entry *e, const char *name, const char *where,
                                                      int phase)
{
  polypragma_buffer_put$s(e->buffer, e->bytes, name, where, phase);
  if (e->pinned)
    polypragma_unpin$s(e->host);
  e->host = NULL;
  e->buffer = NULL;
  e->owner = NULL;
}

static POLYPRAGMA_UNUSED polypragma_entry *polypragma_keep$s(char *host, size_t bytes, size_t align, const char *name,
                                                      const char *where);

static POLYPRAGMA_UNUSED int polypragma_bind$s(polypragma_binding$s *b, void *host, size_t bytes, int copy_in, size_t align,
                             int direct, int keep, const char *name, const char *where)
{
  b->buffer = NULL;
  b->offset = 0;
  b->entry = NULL;
  b->upload = 0;
  b->direct = 0;
  b->bytes = bytes;
  const char *h = (const char *)host;
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE && bytes > 0 && host != NULL; ++k) {
    polypragma_entry *e = &polypragma_data_table.entries[k];
    if (e->owner != &polypragma_data_owner$s || !polypragma_overlaps$s(e, h, bytes))
      continue;
    size_t offset = (size_t)(h - e->host);
    if (h >= e->host && h + bytes <= e->host + e->bytes && (align == 0 ? offset == 0 : offset % align == 0)) {
      b->entry = e;
      b->buffer = e->buffer;
      b->offset = offset;
      if (e->state == POLYPRAGMA_HOST)  /* a region writing all of the entry needs none of its old values */
        b->upload = copy_in || offset != 0 || bytes != e->bytes ? 2 : 0;
      return 0;
    }
  }
  /* not held in place here: the host copy must be current (another file's entries, or a partial overlap);
     a region's local array (no host copy) is a buffer of the pool */
  int status = host != NULL ? polypragma_host_current$s(host, bytes, 0, where) : 0;
  if (status != 0)
    return status;
  b->direct = direct && host != NULL && bytes > 0 && polypragma_direct$s(host, bytes);
  if (b->direct) {  /* managed memory, or any host memory the device reaches (see the target's copies) */
    b->buffer = host;
    return 0;
  }
  polypragma_entry *kept = keep && host != NULL && bytes > 0 ? polypragma_keep$s((char *)host, bytes, align, name, where)
                                                              : NULL;
  if (kept != NULL) {  /* in place in an entry a keep scope makes for it: its first upload is the whole entry */
    b->entry = kept;
    b->buffer = kept->buffer;
    b->offset = (size_t)(h - kept->host);
    b->upload = 2;
    return 0;
  }
  status = polypragma_buffer_get$s(&b->buffer, bytes, name, where, POLYPRAGMA_BEFORE_COPY_OUT);
  b->upload = copy_in;
  return status;
}

/* Where a keep scope of this file is open (the pieces of a region split around a loop run on the host,
   driver._compile_split): an entry holding [host, host + bytes) for the rest of the scope, in state HOST,
   made from it and the entries of this file's keep scopes it overlaps (brought to the host first and
   given up), so a region that later binds more of the same array still finds it in place.  NULL where
   no keep scope is open, the range overlaps another entry (a data scope's, another file's), the offset
   would not be aligned, or no slot or buffer is free: the region then copies, as without the scope. */
static POLYPRAGMA_UNUSED polypragma_entry *polypragma_keep$s(char *host, size_t bytes, size_t align, const char *name,
                                                      const char *where)
{
  if (polypragma_keeping$s == 0 || !polypragma_scopes_on$s())
    return NULL;
  char *low = host, *high = host + bytes;
  polypragma_entry *free_slot = NULL;
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {
    polypragma_entry *e = &polypragma_data_table.entries[k];
    if (e->host == NULL) {
      free_slot = free_slot != NULL ? free_slot : e;
      continue;
    }
    if (!polypragma_overlaps$s(e, host, bytes))
      continue;
    low = e->host < low ? e->host : low;
    high = e->host + e->bytes > high ? e->host + e->bytes : high;
  }
  if (align == 0 ? low != host : (size_t)(host - low) % align != 0)
    return NULL;
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {  /* only this file's keep scopes' entries grown over */
    const polypragma_entry *e = &polypragma_data_table.entries[k];
    if (polypragma_overlaps$s(e, low, (size_t)(high - low)) && (e->owner != &polypragma_data_owner$s || e->kept == 0))
      return NULL;
  }
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {  /* the entries it grows from, given up */
    polypragma_entry *e = &polypragma_data_table.entries[k];
    if (e->host == NULL || e->owner != &polypragma_data_owner$s || !polypragma_overlaps$s(e, low, (size_t)(high - low)))
      continue;
    if (polypragma_entry_current$s(e, 0, where) != 0)
      return NULL;
    polypragma_entry_release$s(e, name, where, POLYPRAGMA_BEFORE_COPY_OUT);
    free_slot = free_slot != NULL ? free_slot : e;
  }
  void *buffer = NULL;
  if (free_slot == NULL || polypragma_buffer_get$s(&buffer, (size_t)(high - low), name, where,
                                                   POLYPRAGMA_BEFORE_COPY_OUT) != 0)
    return NULL;
  free_slot->host = low;
  free_slot->bytes = (size_t)(high - low);
  free_slot->buffer = buffer;
  free_slot->state = POLYPRAGMA_HOST;
  free_slot->depth = 1;
  free_slot->pinned = 0;
  free_slot->kept = 1;
  free_slot->owner = &polypragma_data_owner$s;
  free_slot->download = polypragma_entry_download$s;
  return free_slot;
}

/* the copy-in of a bound array */
static POLYPRAGMA_UNUSED int polypragma_fill$s(polypragma_binding$s *b, const void *host, const char *name, const char *where)
{
  int status = 0;
  if (b->upload == 2) {
    status = polypragma_upload$s(b->buffer, 0, b->entry->host, b->entry->bytes, name, where, POLYPRAGMA_BEFORE_COPY_OUT);
    if (status == 0)
      b->entry->state = POLYPRAGMA_BOTH;
  }
  else if (b->upload == 1 && b->bytes > 0 && !b->direct)
    status = polypragma_upload$s(b->buffer, b->offset, host, b->bytes, name, where, POLYPRAGMA_BEFORE_COPY_OUT);
  else if (b->entry != NULL && b->entry->state == POLYPRAGMA_HOST)
    b->entry->state = POLYPRAGMA_BOTH;  /* the region writes all of it: the device's copy will be current */
  b->upload = 0;
  return status;
}

/* After the kernels: the copy-out of a pool buffer, or the new state of an entry used in place */
static POLYPRAGMA_UNUSED int polypragma_finish$s(polypragma_binding$s *b, void *host, int written, int copy_out, const char *name,
                               const char *where)
{
  if (b->entry != NULL) {
    if (written)
      b->entry->state = POLYPRAGMA_DEVICE;
    return 0;
  }
  if (!copy_out || b->bytes == 0 || b->direct)
    return 0;
  int status = polypragma_download$s(host, b->buffer, 0, b->bytes, name, where, POLYPRAGMA_COPYING_OUT);
  if (status == 0 && written)  /* the host now has what the region wrote: any entry it overlaps must upload */
    polypragma_host_current$s(host, b->bytes, 1, where);
  return status;
}

/* In the release of a region: a pool buffer goes back to the pool.  When the region falls back to its
   original loops ("fallback"), the host copy of the array must be current first; that is impossible
   when a kernel that ran ("launched") wrote an entry whose only current copy was the device's. */
static POLYPRAGMA_UNUSED int polypragma_unbind$s(polypragma_binding$s *b, void *host, size_t bytes, int written, int fallback,
                               int launched, const char *name, const char *where, int phase)
{
  int status = 0;
  if (b->entry == NULL && b->buffer != NULL && !b->direct)
    status = polypragma_buffer_put$s(b->buffer, b->bytes, name, where, phase);
  if (fallback) {
    if (b->entry != NULL && written && launched && b->entry->state == POLYPRAGMA_DEVICE) {
      POLYPRAGMA_REPORT("polypragma: %s: '%s' is kept on the device by a data scope and a kernel wrote it before "
                        "the failure: its only current copy is lost; cannot fall back to the original loops\n",
                        where, name);
      POLYPRAGMA_FATAL();
      return 1;
    }
    if (polypragma_host_current$s(host, bytes, written, where) != 0)
      return 1;
  }
  b->buffer = NULL;
  b->entry = NULL;
  return status;
}

/* -- arrays of rows through pointers ------------------------------------------------------------ */

/* An array of rows through pointers (T **A, A[i][j]) lives on the device as a dense copy, row R at R *
   WIDTH elements; what of each row crosses is its elements FIRST to LAST (of SIZE bytes each), no more,
   since the host's row may end right after them.  The host copy of the row's elements is brought up to
   date first (a data scope may keep the array they lie in; with WRITTEN, the host is about to change
   them).  Nonzero: a download failed (reported). */
static POLYPRAGMA_UNUSED int polypragma_row_current$s(const void *row, long first, long last, size_t size, int written,
                                    const char *where)
{
  if (last < first)
    return 0;
  return polypragma_host_current$s((const char *)row + (size_t)first * size, (size_t)(last - first + 1) * size, written,
                                   where);
}

/* The bytes of rows FIRST to LAST of a dense copy of rows of WIDTH elements of SIZE bytes (none when LAST < FIRST) */
static POLYPRAGMA_UNUSED size_t polypragma_rows_bytes$s(long first, long last, size_t width, size_t size)
{
  return last < first ? 0 : (size_t)(last - first + 1) * width * size;
}

/* Rows cross packed: the rows a region touches go through one host buffer *PACK laid out as the dense device
   copy (row R at (R - FIRST) * WIDTH elements), so that they take one copy each way, not one per row.  Reserved
   before the kernels run for both ways (IN and OUT bytes), so that the copy-out needs no memory it may not get;
   freed by the region's release.  A failure here sends the region to its original loops. */
static POLYPRAGMA_UNUSED int polypragma_pack_reserve$s(char **pack, size_t *capacity, size_t in, size_t out,
                                                       const char *name, const char *where)
{
  const size_t bytes = in > out ? in : out;
  if (bytes <= *capacity)
    return 0;
  char *grown = (char *)realloc(*pack, bytes);
  if (!grown) {
    POLYPRAGMA_REPORT("polypragma: %s: no host memory to pack the rows of '%s' (%zu bytes): the region runs its "
                      "original loops\n", where, name, bytes);
    return 1;
  }
  *pack = grown;
  *capacity = bytes;
  return 0;
}

/* A row into the pack, its elements FIRST to LAST at row R of it (after bringing its host copy up to date;
   UPLOAD: its values are packed, else the region writes all of them).  The pack's elements outside the rows'
   parts are left as they are: the kernels never read them, and the copy-out writes back the rows' parts alone */
static POLYPRAGMA_UNUSED int polypragma_row_pack$s(char *pack, const void *row, long r, long first, long last,
                                                   size_t width, size_t size, int upload, const char *where)
{
  int status = polypragma_row_current$s(row, first, last, size, 0, where);
  if (status == 0 && upload && last >= first)
    memcpy(pack + ((size_t)r * width + (size_t)first) * size, (const char *)row + (size_t)first * size,
           (size_t)(last - first + 1) * size);
  return status;
}

/* A written row out of the pack (row R of it, its elements FIRST to LAST); the host then has the newest copy */
static POLYPRAGMA_UNUSED void polypragma_row_unpack$s(void *row, const char *pack, long r, long first, long last,
                                                      size_t width, size_t size, const char *where)
{
  if (last < first)
    return;
  char *h = (char *)row + (size_t)first * size;
  const size_t bytes = (size_t)(last - first + 1) * size;
  memcpy(h, pack + ((size_t)r * width + (size_t)first) * size, bytes);
  polypragma_host_current$s(h, bytes, 1, where);
}

/* The packed rows FIRST to LAST between the pack and the dense device copy (of TOTAL bytes: the last rows' parts
   past its end, which no row's elements reach, do not cross), in one copy (INTO: to the device) */
static POLYPRAGMA_UNUSED int polypragma_rows_cross$s(void *buffer, char *pack, long first, long last, size_t width,
                                                     size_t size, size_t total, int into, const char *name,
                                                     const char *where)
{
  const size_t offset = (size_t)(first > 0 ? first : 0) * width * size;
  size_t bytes = polypragma_rows_bytes$s(first, last, width, size);
  if (offset >= total)
    return 0;
  if (bytes > total - offset)
    bytes = total - offset;
  if (bytes == 0)
    return 0;
  char what[200];  /* for a failure's message */
  snprintf(what, sizeof what, "rows %ld to %ld of %s", first, last, name);
  return into ? polypragma_upload$s(buffer, offset, pack, bytes, what, where, POLYPRAGMA_BEFORE_COPY_OUT)
              : polypragma_download$s(pack, buffer, offset, bytes, what, where, POLYPRAGMA_COPYING_OUT);
}

/* -- arguments that overlap in host memory ------------------------------------------------------ */

/* What a region touches of its arguments as spans of host memory (an array's bytes; a row's elements FIRST to
   LAST, for an array of rows through pointers), to tell whether two of them overlap, one written: the kernels
   would not see each other's writes as the original loops do (the same array as two arguments, f(x, x + 1);
   a row that is another argument's memory; a row that aliases another, A[1] == A[0], or A[i] = data + i with
   rows longer than one element, would be two rows in the dense device copy), so the region runs its
   original loops.  Each span says whether it is a row, for the message. */
typedef struct { const char *start, *end; int written, row; const char *name; } polypragma_span$s;
typedef struct { polypragma_span$s *spans; size_t n, capacity; int failed; } polypragma_spans$s;

static POLYPRAGMA_UNUSED void polypragma_span_add$s(polypragma_spans$s *s, const void *row, long first, long last,
                                                    size_t size, int written, int is_row, const char *name)
{
  if (last < first || s->failed)
    return;
  if (s->n == s->capacity) {
    size_t capacity = s->capacity ? 2 * s->capacity : 64;
    polypragma_span$s *grown = (polypragma_span$s *)realloc(s->spans, capacity * sizeof *grown);
    if (!grown) {
      s->failed = 1;  /* (no memory to tell: the region runs its original loops) */
      return;
    }
    s->spans = grown;
    s->capacity = capacity;
  }
  const char *start = (const char *)row + (size_t)first * size;
  polypragma_span$s span = {start, start + (size_t)(last - first + 1) * size, written, is_row, name};
  s->spans[s->n++] = span;
}

/* An array of BYTES bytes at HOST as a span of S */
static POLYPRAGMA_UNUSED void polypragma_span_array$s(polypragma_spans$s *s, const void *host, size_t bytes,
                                                      int written, const char *name)
{
  if (bytes > 0)
    polypragma_span_add$s(s, host, 0, (long)(bytes - 1), 1, written, 0, name);
}

static POLYPRAGMA_UNUSED int polypragma_span_order$s(const void *a, const void *b)
{
  const char *x = ((const polypragma_span$s *)a)->start, *y = ((const polypragma_span$s *)b)->start;
  return x < y ? -1 : x > y;
}

/* Whether two spans of S overlap, one written; frees S's spans.  Sorted by start, a span overlaps an earlier
   one exactly when it starts before the furthest end of those before it.  SAID: whether each kind of overlap
   (two arrays, a row and an array, two rows) and a failure to check have been told, each told once */
static POLYPRAGMA_UNUSED int polypragma_spans_overlap$s(polypragma_spans$s *s, const char *where, int said[4])
{
  int overlap = s->failed;
  const polypragma_span$s *first = NULL, *second = NULL;
  if (!overlap && s->n > 1) {
    qsort(s->spans, s->n, sizeof *s->spans, polypragma_span_order$s);
    const polypragma_span$s *furthest = NULL, *furthest_written = NULL;
    for (size_t i = 0; i < s->n && !overlap; ++i) {
      const polypragma_span$s *span = &s->spans[i];
      const polypragma_span$s *other = span->written ? furthest : furthest_written;
      if (other && span->start < other->end) {
        overlap = 1;
        first = other->row || !span->row ? other : span;  /* a row first */
        second = first == other ? span : other;
      }
      if (!furthest || span->end > furthest->end)
        furthest = span;
      if (span->written && (!furthest_written || span->end > furthest_written->end))
        furthest_written = span;
    }
  }
  int kind = first ? first->row + second->row : 3;
  if (overlap && !said[kind]) {
    if (kind == 0)
      POLYPRAGMA_REPORT("polypragma: %s: arrays '%s' and '%s' overlap in memory and one is written: the region "
                        "runs its original loops when they do\n", where, first->name, second->name);
    else if (kind == 1)
      POLYPRAGMA_REPORT("polypragma: %s: a row of '%s' and the array '%s' overlap in memory and one is written: the "
                        "region runs its original loops when they do\n", where, first->name, second->name);
    else if (kind == 2)
      POLYPRAGMA_REPORT("polypragma: %s: rows of '%s' and '%s' overlap in memory and one is written: the region runs "
                        "its original loops when they do\n", where, first->name, second->name);
    else
      POLYPRAGMA_REPORT("polypragma: %s: no memory to check whether its arguments overlap: the region runs its "
                        "original loops\n", where);
    said[kind] = 1;
  }
  free(s->spans);
  s->spans = NULL;
  s->n = s->capacity = 0;
  return overlap;
}

/* -- data scopes and updates --------------------------------------------------------------------- */

/* The start of a data scope: each clause's array gets a device copy (copy and copyin upload it now,
   copyout and create when a region first needs its values).  An array already held by an enclosing scope
   stays as it is; one that partly overlaps another's is not kept (its regions copy).  Nothing is kept
   without a device, or under POLYPRAGMA_DATA=copy: the regions then copy, or run their original loops. */
$storage void $enter(const char *where, int n, polypragma_data_clause *clauses)
{
  for (int c = 0; c < n; ++c)
    clauses[c].entered = 0;
  if (!polypragma_scopes_on$s() || $setup(where) != 0)
    return;
  for (int c = 0; c < n; ++c) {
    polypragma_data_clause *clause = &clauses[c];
    char *h = (char *)clause->host;
    if (clause->bytes == 0 || h == NULL)
      continue;
    polypragma_entry *free_slot = NULL, *held = NULL;
    int clash = 0;
    for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {
      polypragma_entry *e = &polypragma_data_table.entries[k];
      if (e->host == NULL) {
        if (free_slot == NULL)
          free_slot = e;
      }
      else if (polypragma_overlaps$s(e, h, clause->bytes)) {
        if (e->owner == &polypragma_data_owner$s && h >= e->host && h + clause->bytes <= e->host + e->bytes)
          held = e;
        else
          clash = 1;
      }
    }
    if (held != NULL && !clash) {
      held->depth++;
      clause->entered = 1;
      continue;
    }
    if (clash || free_slot == NULL) {
      POLYPRAGMA_REPORT("polypragma: %s: '%s' is not kept on the device: %s\n", where, clause->name,
                        clash ? "it overlaps an array another data scope keeps" : "too many arrays in data scopes");
      continue;
    }
    void *buffer = NULL;
    if (polypragma_buffer_get$s(&buffer, clause->bytes, clause->name, where, POLYPRAGMA_BEFORE_COPY_OUT) != 0)
      continue;  /* reported; its regions copy */
    const int pinned = polypragma_pin$s(h, clause->bytes);
    if (clause->kind == POLYPRAGMA_COPY || clause->kind == POLYPRAGMA_COPYIN) {
      if (polypragma_upload$s(buffer, 0, h, clause->bytes, clause->name, where, POLYPRAGMA_BEFORE_COPY_OUT) != 0) {
        polypragma_buffer_put$s(buffer, clause->bytes, clause->name, where, POLYPRAGMA_DONE);
        if (pinned)
          polypragma_unpin$s(h);
        continue;
      }
    }
    free_slot->host = h;
    free_slot->bytes = clause->bytes;
    free_slot->buffer = buffer;
    free_slot->state = clause->kind == POLYPRAGMA_COPY || clause->kind == POLYPRAGMA_COPYIN ? POLYPRAGMA_BOTH
                       : POLYPRAGMA_HOST;
    free_slot->depth = 1;
    free_slot->pinned = pinned;
    free_slot->kept = 0;
    free_slot->owner = &polypragma_data_owner$s;
    free_slot->download = polypragma_entry_download$s;
    clause->entered = 1;
  }
}

/* The end of a data scope: what the device computed comes back to the host (for every clause: the host
   has the same results as when the regions ran their original loops), and the buffers go to the pool. */
$storage void $exit(const char *where, int n, polypragma_data_clause *clauses)
{
  for (int c = n - 1; c >= 0; --c) {
    polypragma_data_clause *clause = &clauses[c];
    if (!clause->entered)
      continue;
    clause->entered = 0;
    char *h = (char *)clause->host;
    for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k) {
      polypragma_entry *e = &polypragma_data_table.entries[k];
      if (e->owner != &polypragma_data_owner$s || !polypragma_overlaps$s(e, h, clause->bytes))
        continue;
      if (--e->depth > 0)
        break;
      if (e->state == POLYPRAGMA_DEVICE && e->download(e, where) != 0)
        POLYPRAGMA_REPORT("polypragma: %s: the results in '%s' were lost\n", where, clause->name);
      polypragma_entry_release$s(e, clause->name, where, POLYPRAGMA_DONE);
      break;
    }
  }
}

/* The start of a keep scope: until its end, the arrays this file's regions bind stay on the device
   (polypragma_keep).  Nothing is kept without a device, or under POLYPRAGMA_DATA=copy. */
$storage void $keep_enter(const char *where)
{
  (void)where;
  ++polypragma_keeping$s;
}

/* Its end: when it is the outermost (a split region's pieces may split again, and the inner loop's
   arrays then stay for the outer loop's next iteration), what the device computed comes back to the host,
   and the buffers go to the pool. */
$storage void $keep_exit(const char *where)
{
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE && polypragma_keeping$s == 1; ++k) {
    polypragma_entry *e = &polypragma_data_table.entries[k];
    if (e->host == NULL || e->owner != &polypragma_data_owner$s || !e->kept)
      continue;
    if (e->state == POLYPRAGMA_DEVICE && e->download(e, where) != 0)
      POLYPRAGMA_REPORT("polypragma: %s: the results in an array kept on the device were lost\n", where);
    polypragma_entry_release$s(e, "an array kept on the device", where, POLYPRAGMA_DONE);
  }
  --polypragma_keeping$s;
}

/* update host(A): the host copy of A is brought up to date, for host code to read (or write, before an
   update device) */
$storage void $update_host(const char *where, void *host, size_t bytes)
{
  polypragma_host_current$s(host, bytes, 0, where);
}

/* update device(A): the host wrote A; the device copy is refreshed before a region next uses it (the
   rest of an entry A only partly covers is brought to the host first, so nothing newer is overwritten) */
$storage void $update_device(const char *where, void *host, size_t bytes)
{
  polypragma_host_current$s(host, bytes, 1, where);
}
""")


def types() -> list[str]:
    return _TYPES.strip("\n").split("\n")


def names(stem: str) -> dict[str, str]:
    """The data scope's entry points of a generated file, as its C code calls them."""
    return {"enter": f"polypragma_{stem}_data_enter", "exit": f"polypragma_{stem}_data_exit",
            "update_host": f"polypragma_{stem}_update_host", "update_device": f"polypragma_{stem}_update_device",
            "keep_enter": f"polypragma_{stem}_keep_enter", "keep_exit": f"polypragma_{stem}_keep_exit"}


def runtime(suffix: str, setup: str, stem: str, storage: str) -> list[str]:
    """The data layer, after the target's primitives.  ``storage``: of the scope's entry points
    ('extern "C" ' in a .cu file the C file calls, 'static ' when in the C file itself)."""
    if storage.startswith("static"):
        storage = "static POLYPRAGMA_UNUSED"
    text = _RUNTIME.substitute(s=suffix, setup=setup, storage=storage.strip(), **names(stem))
    return types() + text.strip("\n").split("\n")


def prototypes(stem: str) -> list[str]:
    """Declarations of the scope's entry points, for a C file calling them in a .cu file."""
    n = names(stem)
    return [f"void {n['enter']}(const char *where, int n, polypragma_data_clause *clauses);",
            f"void {n['exit']}(const char *where, int n, polypragma_data_clause *clauses);",
            f"void {n['update_host']}(const char *where, void *host, size_t bytes);",
            f"void {n['update_device']}(const char *where, void *host, size_t bytes);",
            f"void {n['keep_enter']}(const char *where);", f"void {n['keep_exit']}(const char *where);"]
