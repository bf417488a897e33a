/**
 * The workers' seccomp filter: the engine's default allow-list (as of Docker 20.10) for a
 * container without capabilities, minus `io_uring_setup`, `io_uring_enter` and
 * `io_uring_register`. io_uring runs I/O from kernel worker threads that seccomp does not
 * see and has been a steady source of kernel privilege escalations, so newer engines leave
 * it out of their default; here it is left out on every engine. Anything not allowed fails
 * with EPERM, as under the default profile.
 */

/** Syscalls a capability-less container may make, whatever their arguments. */
const ALLOWED = `
accept accept4 access adjtimex alarm bind brk capget capset chdir chmod chown chown32
clock_adjtime clock_adjtime64 clock_getres clock_getres_time64 clock_gettime clock_gettime64
clock_nanosleep clock_nanosleep_time64 close close_range connect copy_file_range creat dup dup2
dup3 epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait
epoll_wait_old eventfd eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64
fadvise64_64 fallocate fanotify_mark fchdir fchmod fchmodat fchown fchown32 fchownat fcntl
fcntl64 fdatasync fgetxattr flistxattr flock fork fremovexattr fsetxattr fstat fstat64
fstatat64 fstatfs fstatfs64 fsync ftruncate ftruncate64 futex futex_time64 futex_waitv
futimesat getcpu getcwd getdents getdents64 getegid getegid32 geteuid geteuid32 getgid getgid32
getgroups getgroups32 getitimer getpeername getpgid getpgrp getpid getppid getpriority
getrandom getresgid getresgid32 getresuid getresuid32 getrlimit get_robust_list getrusage
getsid getsockname getsockopt get_thread_area gettid gettimeofday getuid getuid32 getxattr
inotify_add_watch inotify_init inotify_init1 inotify_rm_watch io_cancel ioctl io_destroy
io_getevents io_pgetevents io_pgetevents_time64 ioprio_get ioprio_set io_setup io_submit ipc
kill landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown lchown32 lgetxattr
link linkat listen listxattr llistxattr _llseek lremovexattr lseek lsetxattr lstat lstat64
madvise membarrier memfd_create memfd_secret mincore mkdir mkdirat mknod mknodat mlock mlock2
mlockall mmap mmap2 mprotect mq_getsetattr mq_notify mq_open mq_timedreceive
mq_timedreceive_time64 mq_timedsend mq_timedsend_time64 mq_unlink mremap msgctl msgget msgrcv
msgsnd msync munlock munlockall munmap name_to_handle_at nanosleep newfstatat _newselect open
openat openat2 pause pidfd_open pidfd_send_signal pipe pipe2 pkey_alloc pkey_free pkey_mprotect
poll ppoll ppoll_time64 prctl pread64 preadv preadv2 prlimit64 process_mrelease pselect6
pselect6_time64 pwrite64 pwritev pwritev2 read readahead readlink readlinkat readv recv
recvfrom recvmmsg recvmmsg_time64 recvmsg remap_file_pages removexattr rename renameat
renameat2 restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo
rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo
sched_getaffinity sched_getattr sched_getparam sched_get_priority_max sched_get_priority_min
sched_getscheduler sched_rr_get_interval sched_rr_get_interval_time64 sched_setaffinity
sched_setattr sched_setparam sched_setscheduler sched_yield seccomp select semctl semget semop
semtimedop semtimedop_time64 send sendfile sendfile64 sendmmsg sendmsg sendto setfsgid
setfsgid32 setfsuid setfsuid32 setgid setgid32 setgroups setgroups32 setitimer setpgid
setpriority setregid setregid32 setresgid setresgid32 setresuid setresuid32 setreuid setreuid32
setrlimit set_robust_list setsid setsockopt set_thread_area set_tid_address setuid setuid32
setxattr shmat shmctl shmdt shmget shutdown sigaltstack signalfd signalfd4 sigprocmask sigreturn
socketcall socketpair splice stat stat64 statfs statfs64 statx symlink symlinkat sync
sync_file_range syncfs sysinfo tee tgkill time timer_create timer_delete timer_getoverrun
timer_gettime timer_gettime64 timer_settime timer_settime64 timerfd_create timerfd_gettime
timerfd_gettime64 timerfd_settime timerfd_settime64 times tkill truncate truncate64 ugetrlimit
umask uname unlink unlinkat utime utimensat utimensat_time64 utimes vfork vmsplice wait4 waitid
waitpid write writev process_vm_readv process_vm_writev ptrace
`
  .trim()
  .split(/\s+/);

/** The syscalls this profile refuses although the Docker 20.10 default allows them. */
export const REFUSED_SYSCALLS = ["io_uring_setup", "io_uring_enter", "io_uring_register"] as const;

const allow = (names: readonly string[], extra: Record<string, unknown> = {}) => ({
  names: [...names],
  action: "SCMP_ACT_ALLOW",
  ...extra,
});
const arg = (index: number, value: number, op: string) => ({ index, value, valueTwo: 0, op });
/** clone flags that create namespaces (CLONE_NEWNS|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWCGROUP): refused without CAP_SYS_ADMIN. */
const CLONE_NAMESPACE_FLAGS = 2_114_060_288;
const EPERM = 1;
const ENOSYS = 38;

/** The profile as the engine's API takes it in `SecurityOpt: ["seccomp=<json>"]`. */
export function buildSeccompProfile(): Record<string, unknown> {
  if (REFUSED_SYSCALLS.some((name) => ALLOWED.includes(name)))
    throw new Error("The seccomp allow-list names a syscall it must refuse.");
  return {
    defaultAction: "SCMP_ACT_ERRNO",
    archMap: [
      { architecture: "SCMP_ARCH_X86_64", subArchitectures: ["SCMP_ARCH_X86", "SCMP_ARCH_X32"] },
      { architecture: "SCMP_ARCH_AARCH64", subArchitectures: ["SCMP_ARCH_ARM"] },
    ],
    syscalls: [
      allow(ALLOWED),
      allow(["socket"], { args: [arg(0, 40, "SCMP_CMP_NE")] }), // every family but AF_VSOCK
      ...[0, 8, 131_072, 131_080, 4_294_967_295].map((persona) =>
        allow(["personality"], { args: [arg(0, persona, "SCMP_CMP_EQ")] }),
      ),
      allow(["arch_prctl"], { includes: { arches: ["amd64", "x32"] } }),
      allow(["modify_ldt"], { includes: { arches: ["amd64", "x32", "x86"] } }),
      allow(["arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2", "breakpoint", "cacheflush", "set_tls"], {
        includes: { arches: ["arm", "arm64"] },
      }),
      allow(["clone"], { args: [arg(0, CLONE_NAMESPACE_FLAGS, "SCMP_CMP_MASKED_EQ")] }),
      // glibc falls back to clone when clone3 is missing; its flags cannot be filtered, so it is "not implemented".
      { names: ["clone3"], action: "SCMP_ACT_ERRNO", errnoRet: ENOSYS },
      { names: [...REFUSED_SYSCALLS], action: "SCMP_ACT_ERRNO", errnoRet: EPERM },
    ],
  };
}

/** The SecurityOpt entry that applies the profile (its JSON content, so no file is needed on the engine's host). */
export function seccompSecurityOpt(): string {
  return `seccomp=${JSON.stringify(buildSeccompProfile())}`;
}
