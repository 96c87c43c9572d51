"""The CPU's side of the CUDA target's staged copies, done by several threads.

A staged copy (``POLYPRAGMA_COPY=stage``, and ``auto`` for arrays outside a data scope) moves each chunk
between the user's pageable array and a pinned buffer with ``memcpy``, then lets the DMA engine move the
pinned buffer across the link.  One thread's ``memcpy`` moves about 9 GB/s, the link 55 GB/s (H200,
``bench/results/gpu_measurements.md``), so the copies ran at a sixth of the link.  ``polypragma_memcpy``
splits each chunk between ``POLYPRAGMA_COPY_THREADS`` threads (default: the processors online, at most 16;
``1`` copies on the calling thread alone): the caller copies one part, helper threads started once per
process the others.  On the H200 machine (16 cores, bench/results/gpu_measurements.md) 16 threads and
chunks of 32M moved a 1 GiB array at 51 GB/s to the device and 49 GB/s back (92% and 88% of pinned
memory's bandwidth), 8 threads at 51 and 43, 8M chunks at most 38 and 35.  Helpers wait on a condition variable between copies, block every signal (the
program's handlers run on its own threads), and belong to the process that started them: a child made by
``fork`` starts its own at its first copy.

The text is C that compiles as C++ (the CUDA target's host code) and stands alone (``tests/test_data.py``
compiles it with a test program and gcc).
"""

INCLUDES = ["#include <pthread.h>", "#include <signal.h>", "#include <unistd.h>"]

SOURCE = r"""
/* The CPU's side of staged copies by several threads (polypragma/codegen/parallel_copy.py):
   POLYPRAGMA_COPY_THREADS threads, the caller included, each copy a part of every chunk. */
#define POLYPRAGMA_COPY_SPLIT ((size_t)1 << 20) /* smaller copies stay on the calling thread */
static struct {
  pid_t owner;     /* the process whose helpers these are (0: none started) */
  int count;       /* threads that copy, the caller included */
  pthread_mutex_t lock;
  pthread_cond_t work, finished;
  unsigned long round; /* one more for each copy handed to the helpers */
  int busy;            /* helpers still copying their part of this round */
  char *to;
  const char *from;
  size_t bytes;
} polypragma_copiers;

/* part k of count of a copy, in pieces of whole cache lines (the parts cover every byte: a part is the
   copy's share rounded up, not down, then up to a line) */
static void polypragma_copy_part(int k, int count, char *to, const char *from, size_t bytes)
{
  const size_t part = ((bytes + (size_t)count - 1) / (size_t)count + 63) & ~(size_t)63;
  const size_t begin = part * (size_t)k;
  if (begin < bytes)
    memcpy(to + begin, from + begin, bytes - begin < part ? bytes - begin : part);
}

static void *polypragma_copier(void *argument)
{
  const int k = (int)(size_t)argument;
  unsigned long done = 0;
  pthread_mutex_lock(&polypragma_copiers.lock);
  for (;;) {
    while (polypragma_copiers.round == done)
      pthread_cond_wait(&polypragma_copiers.work, &polypragma_copiers.lock);
    done = polypragma_copiers.round;
    char *to = polypragma_copiers.to;
    const char *from = polypragma_copiers.from;
    const size_t bytes = polypragma_copiers.bytes;
    const int count = polypragma_copiers.count;
    pthread_mutex_unlock(&polypragma_copiers.lock);
    polypragma_copy_part(k, count, to, from, bytes);
    pthread_mutex_lock(&polypragma_copiers.lock);
    if (--polypragma_copiers.busy == 0)
      pthread_cond_signal(&polypragma_copiers.finished);
  }
  return NULL;
}

static void polypragma_copiers_start(void)
{
  polypragma_copiers.owner = getpid();
  polypragma_copiers.round = 0;
  polypragma_copiers.busy = 0;
  polypragma_copiers.count = 1;
  pthread_mutex_init(&polypragma_copiers.lock, NULL);
  pthread_cond_init(&polypragma_copiers.work, NULL);
  pthread_cond_init(&polypragma_copiers.finished, NULL);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  long wanted = online < 1 ? 1 : online > 16 ? 16 : online;
  const char *value = getenv("POLYPRAGMA_COPY_THREADS");
  if (value != NULL && value[0] != '\0')
    wanted = strtol(value, NULL, 10);
  wanted = wanted < 1 ? 1 : wanted > 64 ? 64 : wanted;
  pthread_attr_t attributes;
  sigset_t all, kept;
  if (wanted < 2 || pthread_attr_init(&attributes) != 0)
    return;
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attributes, (size_t)1 << 16);
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &kept);  /* the helpers inherit a mask that blocks every signal */
  int count = 1;
  for (; count < wanted; ++count) {
    pthread_t helper;
    if (pthread_create(&helper, &attributes, polypragma_copier, (void *)(size_t)count) != 0)
      break;  /* fewer helpers: the parts are larger */
  }
  pthread_sigmask(SIG_SETMASK, &kept, NULL);
  pthread_attr_destroy(&attributes);
  polypragma_copiers.count = count;
}

/* memcpy by the copying threads (one alone for a small copy) */
static void polypragma_memcpy(char *to, const char *from, size_t bytes)
{
  if (polypragma_copiers.owner != getpid())
    polypragma_copiers_start();
  const int count = polypragma_copiers.count;
  if (count < 2 || bytes < POLYPRAGMA_COPY_SPLIT) {
    memcpy(to, from, bytes);
    return;
  }
  pthread_mutex_lock(&polypragma_copiers.lock);
  polypragma_copiers.to = to;
  polypragma_copiers.from = from;
  polypragma_copiers.bytes = bytes;
  polypragma_copiers.busy = count - 1;
  polypragma_copiers.round++;
  pthread_cond_broadcast(&polypragma_copiers.work);
  pthread_mutex_unlock(&polypragma_copiers.lock);
  polypragma_copy_part(0, count, to, from, bytes);
  pthread_mutex_lock(&polypragma_copiers.lock);
  while (polypragma_copiers.busy > 0)
    pthread_cond_wait(&polypragma_copiers.finished, &polypragma_copiers.lock);
  pthread_mutex_unlock(&polypragma_copiers.lock);
}
"""
