/*
 * workcell-sandbox-user UID GID PROGRAM [ARG...]
 *
 * Runs PROGRAM as UID:GID with the real, effective and saved ids all set (and the
 * supplementary groups reduced to GID), so it holds no capability and has no way back; its
 * capability bounding set is emptied first, so not even a later bug in no-new-privileges
 * could hand it one.
 *
 * Who calls it: the container's init (root with only CAP_SETUID, CAP_SETGID and
 * CAP_SETPCAP) for the
 * container's main process, and workcell's in-container tools server for every program it
 * starts. That server runs with a real uid of 0 and only its effective ids switched to the
 * sandbox user, so the sandbox user's processes cannot reach it; a child it forks still has
 * the real uid 0, which lets this helper take its effective uid back to 0 for the switch.
 * (gVisor instead resets every id to the real uid at exec, but leaves the effective
 * capabilities empty; either way the helper raises them from its permitted set first.)
 * Run by the sandbox user itself, it can only confirm an identity the caller already has.
 *
 * Exit codes: 126 for a refused or failed switch (the message says which step), 127 when
 * PROGRAM is not found, as a shell would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NAME "workcell-sandbox-user"

static void fail(const char *step) {
  fprintf(stderr, NAME ": %s failed: %s\n", step, strerror(errno));
  exit(126);
}

/* A decimal id other than 0 (root) and (uid_t) -1 (which the set*id calls read as "unchanged"). */
static unsigned long parse_id(const char *text, const char *name) {
  char *end = NULL;
  errno = 0;
  unsigned long id = strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || text[0] == '+' || id == 0 || id >= 4294967295UL) {
    fprintf(stderr, NAME ": %s must be a decimal id other than 0; got \"%s\"\n", name, text);
    exit(126);
  }
  return id;
}

/* Makes the permitted capabilities effective (CAP_SETUID, CAP_SETGID and CAP_SETPCAP, when root started us). */
static void raise_permitted(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data) != 0) fail("capget");
  data[0].effective = data[0].permitted;
  data[1].effective = data[1].permitted;
  if (syscall(SYS_capset, &header, data) != 0) fail("capset");
}

/* Empties the capability bounding set (needs CAP_SETPCAP); stops at the first cap the kernel does not know. */
static void drop_bounding_set(void) {
  for (int cap = 0; cap < 64; cap += 1) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) fail("emptying the capability bounding set");
  }
}

static int holds(uid_t uid, gid_t gid) {
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0) return 0;
  return ruid == uid && euid == uid && suid == uid && rgid == gid && egid == gid && sgid == gid;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: " NAME " UID GID PROGRAM [ARG...]\n");
    return 126;
  }
  uid_t uid = (uid_t) parse_id(argv[1], "UID");
  gid_t gid = (gid_t) parse_id(argv[2], "GID");
  if (!holds(uid, gid)) {
    if (geteuid() != 0 && setresuid((uid_t) -1, 0, (uid_t) -1) != 0) fail("taking back root for the switch");
    raise_permitted();
    drop_bounding_set();
    gid_t groups[1] = {gid};
    if (setgroups(1, groups) != 0) fail("setgroups");
    if (setresgid(gid, gid, gid) != 0) fail("setresgid");
    if (setresuid(uid, uid, uid) != 0) fail("setresuid");
    if (!holds(uid, gid)) {
      fprintf(stderr, NAME ": the switch to %lu:%lu did not take\n", (unsigned long) uid, (unsigned long) gid);
      return 126;
    }
  }
  execvp(argv[3], argv + 3);
  int code = errno == ENOENT ? 127 : 126;
  fprintf(stderr, NAME ": cannot run %s: %s\n", argv[3], strerror(errno));
  return code;
}
