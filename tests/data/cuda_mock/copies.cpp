/* Round trips through the generated CUDA data layer on the mock runtime (tests/test_cuda_runtime.py):
   for each size of the command line, a buffer from the pool, an upload and a download of an array of
   that many bytes, checked; then the pinned memory the copies hold.  Argument "fail-pinned" first: no
   pinned memory is to be had; "pin": each array is pinned as a data scope pins it (polypragma_pin) for
   its round trip. */
#include <cstdio>
#include "prelude.cpp"

int main(int argc, char **argv)
{
  int first = 1, pin = 0;
  if (argc > 1 && strcmp(argv[1], "fail-pinned") == 0) {
    mock_fail_pinned = 1;
    first = 2;
  }
  else if (argc > 1 && strcmp(argv[1], "pin") == 0) {
    pin = 1;
    first = 2;
  }
  for (int a = first; a < argc; ++a) {
    const size_t bytes = (size_t)strtoull(argv[a], NULL, 10);
    char *host = (char *)malloc(bytes + 1), *back = (char *)malloc(bytes + 1);
    for (size_t k = 0; k < bytes; ++k)
      host[k] = (char)(k * 7 + bytes);
    memset(back, 0, bytes + 1);
    void *buffer = NULL;
    const int pinned = pin && polypragma_pin(host, bytes) && polypragma_pin(back, bytes);
    if (polypragma_buffer_get(&buffer, bytes, "A", "copies.cpp", 0) != 0
        || polypragma_upload(buffer, 0, host, bytes, "A", "copies.cpp", 0) != 0
        || polypragma_download(back, buffer, 0, bytes, "A", "copies.cpp", 0) != 0) {
      fprintf(stderr, "a call failed for %zu bytes\n", bytes);
      return 1;
    }
    if (memcmp(host, back, bytes) != 0) {
      fprintf(stderr, "the round trip of %zu bytes changed them\n", bytes);
      return 1;
    }
    polypragma_buffer_put(buffer, bytes, "A", "copies.cpp", 0);
    if (pinned) {
      polypragma_unpin(host);
      polypragma_unpin(back);
    }
    printf("%zu %d %zu %zu %d\n", bytes, mock_pinned_allocations, mock_pinned_bytes, mock_pinned_largest,
           mock_registrations);
    free(host);
    free(back);
  }
  return 0;
}
