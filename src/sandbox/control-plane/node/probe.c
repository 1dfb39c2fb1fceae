/*
 * The local node's test image program, a static binary with no libc outside it:
 *   probe                     prints "coffer-probe ready" and waits for SIGTERM
 *   probe connect IP PORT     tries a TCP connection (3 s), prints "connected" or "failed: <why>",
 *                             exits 0 when connected, 1 otherwise
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int try_connect(const char *ip, const char *port) {
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(port))};
  if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1) {
    printf("failed: bad address\n");
    return 1;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0 || (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0 && errno != EINPROGRESS)) {
    printf("failed: %s\n", strerror(errno));
    return 1;
  }
  struct pollfd pfd = {.fd = fd, .events = POLLOUT};
  int error = 0;
  socklen_t len = sizeof error;
  if (poll(&pfd, 1, 3000) != 1) {
    printf("failed: timeout\n");
    return 1;
  }
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
  if (error) {
    printf("failed: %s\n", strerror(error));
    return 1;
  }
  printf("connected\n");
  return 0;
}

static void on_term(int sig) {
  (void)sig;
  _exit(0);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "connect") == 0) return try_connect(argv[2], argv[3]);
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  printf("coffer-probe ready\n");
  fflush(stdout);
  for (;;) pause();
}
