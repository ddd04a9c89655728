/* Loaded with LD_PRELOAD under valgrind: io_uring_setup fails with ENOSYS, so IREE's runtime
 * takes its POSIX proactor (poll and eventfd). valgrind 3.19 treats io_uring_enter as a call
 * that does not block, so a thread waiting in it holds valgrind's lock and the process stalls
 * for good; with this shim it runs. IREE makes its io_uring calls through libc's syscall(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...) {
  static long (*real)(long, ...);
  if (number == SYS_io_uring_setup) {
    errno = ENOSYS;
    return -1;
  }
  if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  va_list ap;
  va_start(ap, number);
  long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
  long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
  va_end(ap);
  return real(number, a, b, c, d, e, f);
}
