/* docker-profile COMMAND [ARG...]: runs COMMAND as a process in a Docker
 * container with the default profile finds itself (moby/profiles'
 * seccomp/default.json and Docker's default capability set), so that the
 * tests can grade there without Docker:
 *
 *   - the cgroup file systems read-only, and /dev/shm a tmpfs of 64 MB
 *     mounted noexec, nosuid, nodev (in a mount namespace of its own, made
 *     first: nothing outside changes);
 *   - a seccomp filter that refuses, with EPERM, what the profile allows
 *     only with CAP_SYS_ADMIN: unshare, setns, mount, umount2, the new
 *     mount API, pivot_root (never allowed), and clone with any CLONE_NEW*
 *     flag; clone3 fails with ENOSYS, so the C library falls back to clone.
 *     Installed while this process still holds CAP_SYS_ADMIN, so without
 *     no_new_privs, as runc installs it;
 *   - root (uid 0) with only the capabilities Docker keeps, in the
 *     bounding, permitted and effective sets (inheritable and ambient
 *     empty, as Docker has left them since 20.10.14).
 *
 * Exit status 77 (and why on standard error) when this machine does not
 * let the profile be made; otherwise COMMAND's, through exec. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "docker-profile knows x86-64 and AArch64 only"
#endif

/* The flags of clone that make a namespace (the profile's 0x7E020000). */
#define NAMESPACES                                                              \
  (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
   CLONE_NEWNET | CLONE_NEWCGROUP)

/* The capabilities Docker gives a container by default. */
static const int KEPT[] = {
    CAP_CHOWN,  CAP_DAC_OVERRIDE, CAP_FOWNER,           CAP_FSETID,  CAP_KILL,
    CAP_SETGID, CAP_SETUID,       CAP_SETPCAP,          CAP_NET_RAW, CAP_NET_BIND_SERVICE,
    CAP_MKNOD,  CAP_AUDIT_WRITE,  CAP_SYS_CHROOT,       CAP_SETFCAP,
};

static int cannot(const char *what) {
  fprintf(stderr, "docker-profile: cannot %s: %s\n", what, strerror(errno));
  return 77;
}

/* Every cgroup file system read-only, as Docker mounts /sys/fs/cgroup, and
 * Docker's /dev/shm. */
static int docker_mounts(void) {
  if (unshare(CLONE_NEWNS) != 0) return cannot("make a mount namespace");
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return cannot("make mounts private");
  FILE *info = fopen("/proc/self/mountinfo", "r");
  if (!info) return cannot("read /proc/self/mountinfo");
  char line[4096], point[4096];
  while (fgets(line, sizeof line, info)) {
    /* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
    if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1) continue;
    if (strncmp(point, "/sys/fs/cgroup", 14) != 0) continue;
    if (mount(NULL, point, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0) {
      fclose(info);
      return cannot("remount a cgroup file system read-only");
    }
  }
  fclose(info);
  if (mount("shm", "/dev/shm", "tmpfs", MS_NOEXEC | MS_NOSUID | MS_NODEV, "mode=1777,size=65536k") != 0)
    return cannot("mount a tmpfs on /dev/shm");
  return 0;
}

#define REFUSE(nr, errno_) \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (errno_))

static int seccomp_filter(void) {
  struct sock_filter code[] = {
      /* Another architecture's calls (x32, i386) pass: not what is tested. */
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      REFUSE(__NR_unshare, EPERM),
      REFUSE(__NR_setns, EPERM),
      REFUSE(__NR_mount, EPERM),
      REFUSE(__NR_umount2, EPERM),
      REFUSE(__NR_pivot_root, EPERM),
      REFUSE(__NR_open_tree, EPERM),
      REFUSE(__NR_move_mount, EPERM),
      REFUSE(__NR_fsopen, EPERM),
      REFUSE(__NR_fsconfig, EPERM),
      REFUSE(__NR_fsmount, EPERM),
      REFUSE(__NR_fspick, EPERM),
      REFUSE(__NR_mount_setattr, EPERM),
      REFUSE(__NR_clone3, ENOSYS),
      /* clone: its flags are the first argument (the low half holds them all). */
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACES, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {.len = sizeof code / sizeof code[0], .filter = code};
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return cannot("install the seccomp filter");
  return 0;
}

static int docker_capabilities(void) {
  unsigned long long kept = 0;
  for (size_t i = 0; i < sizeof KEPT / sizeof KEPT[0]; i++) kept |= 1ULL << KEPT[i];
  for (int cap = 0; cap < 64; cap++) {
    if (kept & (1ULL << cap)) continue;
    /* EINVAL: a capability this kernel does not have. */
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return cannot("drop from the bounding set");
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return cannot("clear the ambient set");
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2] = {
      {.effective = (unsigned)kept, .permitted = (unsigned)kept, .inheritable = 0},
      {.effective = (unsigned)(kept >> 32), .permitted = (unsigned)(kept >> 32), .inheritable = 0},
  };
  if (syscall(__NR_capset, &header, data) != 0) return cannot("set the capabilities");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: docker-profile COMMAND [ARG...]\n");
    return 2;
  }
  int failed = docker_mounts();
  if (!failed) failed = seccomp_filter();
  if (!failed) failed = docker_capabilities();
  if (failed) return failed;
  execvp(argv[1], argv + 1);
  fprintf(stderr, "docker-profile: cannot run %s: %s\n", argv[1], strerror(errno));
  return 127;
}
