/*
 * coffer-memory: the two memory releases Node has no API for, as a Node-API addon
 * (`npm run build` compiles it to dist/native/memory.node; src/runtime/native-memory.ts loads it).
 *
 *   releaseFilePages(): number
 *     Unmaps this process's resident pages of read-only, private, file-backed mappings (the node
 *     binary's code and read-only data, libc's) and returns how many bytes it unmapped. Such a page
 *     is an unmodified copy of the file held in the page cache: unmapping it loses nothing, and the
 *     next access maps it again from the page cache (a minor fault). A page of such a mapping that
 *     was ever written to (a debugger's breakpoint, a relocation) is a private copy; pagemap tells
 *     it apart (bit 61 clear) and it is never touched. Pages are first marked cold (MADV_COLD,
 *     Linux >= 5.4; ignored where unknown) so the page cache keeps the hot ones.
 *     Throws when /proc/self/maps or /proc/self/pagemap cannot be read.
 *
 *   trimMalloc(trimThresholdBytes: number, mmapThresholdBytes: number): boolean
 *     Sets glibc's trim threshold (M_TRIM_THRESHOLD: a free() that leaves more than this unused at
 *     the top of an arena gives it back, in every arena, not just the main one; glibc otherwise
 *     raises it as far as 64 MiB by itself) when trimThresholdBytes > 0, and its mmap threshold
 *     (M_MMAP_THRESHOLD: larger blocks get a mapping of their own, unmapped when freed, instead of
 *     a place in an arena they would fragment; glibc otherwise raises it as far as 32 MiB) when
 *     mmapThresholdBytes > 0; then returns the main arena's unused top and the unused pages inside
 *     every arena's free chunks (malloc_trim(0)). Returns whether memory was released; false where
 *     the C library is not glibc.
 *
 * Contract: both run synchronously on the calling thread and touch no JavaScript object; nothing
 * here allocates on the V8 heap except the returned number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifndef MADV_COLD
#define MADV_COLD 20
#endif

#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_FILE (1ULL << 61)
#define PAGEMAP_BATCH 512

/* Unmaps one run of file pages; returns its length in bytes. */
static size_t release_run(uintptr_t start, uintptr_t end) {
  if (end <= start) return 0;
  madvise((void *)start, end - start, MADV_COLD);
  if (madvise((void *)start, end - start, MADV_DONTNEED) != 0) return 0;
  return end - start;
}

/* Releases the resident file pages of [start, end); returns bytes released or -errno. */
static long long release_mapping(int pagemap, uintptr_t start, uintptr_t end, size_t page) {
  uint64_t entries[PAGEMAP_BATCH];
  long long released = 0;
  uintptr_t run = 0; /* start of the current run of file pages, 0 when none */
  for (uintptr_t at = start; at < end;) {
    size_t count = (end - at) / page;
    if (count > PAGEMAP_BATCH) count = PAGEMAP_BATCH;
    ssize_t got = pread(pagemap, entries, count * sizeof(uint64_t), (off_t)(at / page * sizeof(uint64_t)));
    if (got < 0) return -errno;
    if (got == 0) break;
    size_t read_count = (size_t)got / sizeof(uint64_t);
    for (size_t i = 0; i < read_count; i++, at += page) {
      uint64_t entry = entries[i];
      int file_page = (entry & PAGEMAP_PRESENT) && (entry & PAGEMAP_FILE);
      if (file_page && run == 0) run = at;
      if (!file_page && run != 0) {
        released += (long long)release_run(run, at);
        run = 0;
      }
    }
  }
  if (run != 0) released += (long long)release_run(run, end);
  return released;
}

/* Walks /proc/self/maps; returns bytes released or -errno. */
static long long release_file_pages(void) {
  FILE *maps = fopen("/proc/self/maps", "re");
  if (maps == NULL) return -errno;
  int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) {
    int error = errno;
    fclose(maps);
    return -error;
  }
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  long long released = 0;
  char line[4096];
  while (fgets(line, sizeof line, maps) != NULL) {
    unsigned long start, end, inode;
    char perms[5];
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %lu %n", &start, &end, perms, &inode, &path_at) < 4) continue;
    /* read-only (no 'w'), private ('p'), backed by a file: never modified through this mapping */
    if (perms[0] != 'r' || perms[1] != '-' || perms[3] != 'p' || inode == 0) continue;
    if (path_at <= 0 || line[path_at] != '/') continue;
    long long result = release_mapping(pagemap, start, end, page);
    if (result < 0) {
      released = result;
      break;
    }
    released += result;
  }
  close(pagemap);
  fclose(maps);
  return released;
}

static napi_value throw_errno(napi_env env, const char *what, int error) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static napi_value js_release_file_pages(napi_env env, napi_callback_info info) {
  (void)info;
  long long released = release_file_pages();
  if (released < 0) return throw_errno(env, "cannot release file pages", (int)-released);
  napi_value result;
  napi_create_double(env, (double)released, &result);
  return result;
}

/* A byte count from JavaScript as mallopt's int: 0 when absent or not positive. */
static int option_bytes(napi_env env, napi_value value) {
  double bytes = 0;
  if (napi_get_value_double(env, value, &bytes) != napi_ok || !(bytes > 0)) return 0;
  return bytes > (double)INT32_MAX ? INT32_MAX : (int)bytes;
}

static napi_value js_trim_malloc(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int trim_threshold = argc >= 1 ? option_bytes(env, argv[0]) : 0;
  int mmap_threshold = argc >= 2 ? option_bytes(env, argv[1]) : 0;
  int released = 0;
#ifdef __GLIBC__
  if (trim_threshold > 0) mallopt(M_TRIM_THRESHOLD, trim_threshold);
  if (mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, mmap_threshold);
  released = malloc_trim(0);
#else
  (void)trim_threshold;
  (void)mmap_threshold;
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_property_descriptor properties[] = {
      {"releaseFilePages", NULL, js_release_file_pages, NULL, NULL, NULL, napi_enumerable, NULL},
      {"trimMalloc", NULL, js_trim_malloc, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}
