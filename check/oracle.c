/* check/oracle.c — the PyTorch cross-check.
 *
 * One long-lived Python process ($KGEN_PYTHON, else /usr/bin/python3: Debian's
 * torch is importable only there) runs check/oracle.py, embedded in the check kit
 * as kg_oracle_py_text and passed with `python3 -c`. Importing torch takes 1.5–3 s,
 * a job then costs a few milliseconds, hence one process for many jobs.
 *
 * The channel is one AF_UNIX socketpair, the child's stdin and stdout, carrying
 * line-delimited JSON (the protocol is documented at the top of oracle.py). A socket
 * rather than pipes so that writes can use MSG_NOSIGNAL: a dead oracle must give an
 * error, not SIGPIPE in the host process, and a library may not touch signal
 * dispositions. Every read has a deadline ($KGEN_ORACLE_TIMEOUT seconds, default
 * 600); on a timeout the child is killed. A child that died is reaped at once (no
 * zombies) and the next kg_oracle_check starts a new one.
 */
#include "check.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define ORACLE_START_TIMEOUT_S 120.0 /* import torch: seconds normally; minutes on a cold disk */
#define ORACLE_JOB_TIMEOUT_S 600.0
#define ORACLE_MAX_LINE (64u << 20)  /* a response line above this is a protocol error */

struct kg_oracle {
  char *python;      /* interpreter path or name */
  pid_t pid;         /* 0 when no process is running */
  int fd;            /* our end of the socketpair; -1 when none */
  kg_strbuf in;      /* bytes received and not yet consumed (at most a partial line) */
  uint64_t next_id;  /* request ids, echoed back by the oracle */
  double timeout_s;  /* per job */
  char torch_version[32];
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "exited with status 1", "was killed by signal 9" */
static void describe_status(int status, char *buf, size_t cap) {
  if (WIFEXITED(status)) snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) snprintf(buf, cap, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else snprintf(buf, cap, "stopped (status 0x%x)", status);
}

/* Closes the channel and reaps the child: waits up to `grace_s` for it to exit on
 * its own (EOF on stdin makes oracle.py return), then kills it. Writes how it ended
 * into `how` when given. */
static void reap(kg_oracle *o, double grace_s, char *how, size_t how_cap) {
  if (how && how_cap) snprintf(how, how_cap, "is gone");
  if (o->fd >= 0) close(o->fd), o->fd = -1;
  o->in.len = 0;
  if (o->in.s) o->in.s[0] = 0;
  if (o->pid <= 0) return;
  int status = 0;
  pid_t r = 0;
  double until = now_s() + grace_s;
  while ((r = waitpid(o->pid, &status, WNOHANG)) == 0 && now_s() < until) {
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (r == 0) {
    kill(o->pid, SIGKILL);
    while ((r = waitpid(o->pid, &status, 0)) < 0 && errno == EINTR) {}
  }
  if (r == o->pid && how) describe_status(status, how, how_cap);
  o->pid = 0;
}

/* Reads one '\n'-terminated line (without the '\n') into a malloc'd string.
 * Returns NULL on EOF (*eof), timeout (*timed_out) or error; errors set errno. */
static char *read_line(kg_oracle *o, double timeout_s, bool *eof, bool *timed_out) {
  *eof = *timed_out = false;
  double until = now_s() + timeout_s;
  size_t scanned = 0;
  for (;;) {
    char *nl = o->in.len ? memchr(o->in.s + scanned, '\n', o->in.len - scanned) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - o->in.s);
      char *line = kg_xmalloc(n + 1);
      memcpy(line, o->in.s, n);
      line[n] = 0;
      memmove(o->in.s, nl + 1, o->in.len - n - 1);
      o->in.len -= n + 1;
      o->in.s[o->in.len] = 0;
      return line;
    }
    scanned = o->in.len;
    if (o->in.len > ORACLE_MAX_LINE) {
      errno = EMSGSIZE;
      return NULL;
    }
    double left = until - now_s();
    if (left <= 0) {
      *timed_out = true;
      return NULL;
    }
    struct pollfd p = {.fd = o->fd, .events = POLLIN};
    int pr = poll(&p, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
    if (pr < 0) {
      if (errno == EINTR) continue;
      return NULL;
    }
    if (pr == 0) continue; /* re-check the deadline */
    char buf[65536];
    ssize_t r = read(o->fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET) {
        *eof = true;
        return NULL;
      }
      return NULL;
    }
    if (r == 0) {
      *eof = true;
      return NULL;
    }
    kg_sb_putn(&o->in, buf, (size_t)r);
  }
}

static int send_all(kg_oracle *o, const char *s, size_t n) {
  while (n) {
    ssize_t w = send(o->fd, s, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    s += w, n -= (size_t)w;
  }
  return 0;
}

/* Starts the process and waits for its "ready" line. */
static int spawn(kg_oracle *o, kg_diag *d) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "PyTorch oracle unavailable: socketpair: %s",
                strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
  char dash_c[] = "-c";
  char *script = kg_xstrdup(kg_oracle_py_text); /* argv is char *[] */
  char *argv[] = {o->python, dash_c, script, NULL};
  pid_t pid = 0;
  int err = posix_spawnp(&pid, o->python, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  free(script);
  close(sv[1]);
  if (err) {
    close(sv[0]);
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "PyTorch oracle unavailable: cannot run %s: %s",
                o->python, strerror(err));
    return -1;
  }
  o->pid = pid;
  o->fd = sv[0];
  bool eof, timed_out;
  char *line = read_line(o, ORACLE_START_TIMEOUT_S, &eof, &timed_out);
  if (!line) {
    int saved = errno;
    char how[96];
    reap(o, timed_out ? 0 : 2.0, how, sizeof how);
    if (timed_out)
      kg_diag_add(d, KG_E_DEVICE, NULL, NULL,
                  "PyTorch oracle unavailable: %s did not start within %.0f s (killed)", o->python,
                  ORACLE_START_TIMEOUT_S);
    else if (eof)
      kg_diag_add(d, KG_E_DEVICE, NULL, NULL,
                  "PyTorch oracle unavailable: %s %s before it was ready (see its stderr)",
                  o->python, how);
    else
      kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "PyTorch oracle unavailable: reading from %s: %s",
                  o->python, strerror(saved));
    return -1;
  }
  cJSON *j = cJSON_Parse(line);
  const cJSON *ready = j ? cJSON_GetObjectItemCaseSensitive(j, "ready") : NULL;
  int rc = -1;
  if (cJSON_IsTrue(ready)) {
    const cJSON *tv = cJSON_GetObjectItemCaseSensitive(j, "torch");
    snprintf(o->torch_version, sizeof o->torch_version, "%s",
             cJSON_IsString(tv) ? tv->valuestring : "?");
    rc = 0;
  } else {
    const cJSON *e = j ? cJSON_GetObjectItemCaseSensitive(j, "error") : NULL;
    if (cJSON_IsString(e))
      kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "PyTorch oracle unavailable: %s cannot import torch: %s",
                  o->python, e->valuestring);
    else
      kg_diag_add(d, KG_E_DEVICE, NULL, NULL,
                  "PyTorch oracle unavailable: %s sent an unexpected first line: %.200s", o->python,
                  line);
    reap(o, 2.0, NULL, 0);
  }
  cJSON_Delete(j);
  free(line);
  return rc;
}

kg_oracle *kg_oracle_start(kg_diag *d) {
  kg_oracle *o = kg_xcalloc(1, sizeof *o);
  const char *py = getenv("KGEN_PYTHON");
  o->python = kg_xstrdup(py && *py ? py : "/usr/bin/python3");
  o->fd = -1;
  kg_sb_init(&o->in);
  o->timeout_s = ORACLE_JOB_TIMEOUT_S;
  const char *t = getenv("KGEN_ORACLE_TIMEOUT");
  if (t && *t) {
    char *end;
    double v = strtod(t, &end);
    if (end != t && !*end && v > 0) o->timeout_s = v;
  }
  if (spawn(o, d)) {
    kg_oracle_stop(o);
    return NULL;
  }
  return o;
}

void kg_oracle_stop(kg_oracle *o) {
  if (!o) return;
  reap(o, 5.0, NULL, 0); /* closing our end = EOF on its stdin: it exits by itself */
  kg_sb_free(&o->in);
  free(o->python);
  free(o);
}

/* ---- one job ---- */

static cJSON *string_array(const char **v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
  return a;
}

static bool strings_ok(const char **v, int n) {
  if (n < 0 || (n > 0 && !v)) return false;
  for (int i = 0; i < n; i++)
    if (!v[i]) return false;
  return true;
}

static double json_num(const cJSON *x) {
  if (cJSON_IsNumber(x)) return x->valuedouble;
  if (cJSON_IsString(x)) return strtod(x->valuestring, NULL); /* "inf", "nan" */
  return NAN;
}

static void copy_str(char *dst, size_t cap, const cJSON *x) {
  snprintf(dst, cap, "%s", cJSON_IsString(x) ? x->valuestring : "");
}

int kg_oracle_check(kg_oracle *o, const kg_oracle_job *job, kg_oracle_row *rows, kg_diag *d) {
  if (!o || !job || !job->script || !job->fn || job->n_outputs < 0 ||
      (job->n_outputs > 0 && !rows) || !strings_ok(job->inputs, job->n_inputs) ||
      !strings_ok(job->captures, job->n_captures) ||
      !strings_ok(job->capture_names, job->n_captures) ||
      (!job->grad && !strings_ok(job->ours, job->n_outputs)) || !strings_ok(job->expect_dtypes, job->n_outputs) ||
      (job->grad && (job->n_weights < 0 || (job->n_weights && !job->weights) || (job->n_outputs && !job->grad_input)))) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "oracle job is incomplete (NULL script, fn or path)");
    return -1;
  }
  for (int i = 0; i < job->n_outputs; i++) {
    memset(&rows[i], 0, sizeof rows[i]);
    snprintf(rows[i].verdict, sizeof rows[i].verdict, "not checked");
  }
  if (o->pid <= 0 && spawn(o, d)) return -1; /* died earlier: start a new one */

  uint64_t id = ++o->next_id;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "op", job->grad ? "grad" : "check");
  cJSON_AddNumberToObject(req, "id", (double)id);
  cJSON_AddStringToObject(req, "script", job->script);
  cJSON_AddStringToObject(req, "fn", job->fn);
  cJSON_AddBoolToObject(req, "torchscript", job->torchscript);
  cJSON_AddItemToObject(req, "inputs", string_array(job->inputs, job->n_inputs));
  cJSON *caps = cJSON_AddObjectToObject(req, "captures");
  for (int i = 0; i < job->n_captures; i++)
    cJSON_AddStringToObject(caps, job->capture_names[i], job->captures[i]);
  cJSON *ours = cJSON_AddArrayToObject(req, "ours"); /* a gradient job's NULL: kgen has none for that parameter */
  for (int i = 0; i < job->n_outputs; i++) cJSON_AddItemToArray(ours, job->ours[i] ? cJSON_CreateString(job->ours[i]) : cJSON_CreateNull());
  cJSON_AddItemToObject(req, "expect_dtypes", string_array(job->expect_dtypes, job->n_outputs));
  cJSON_AddNumberToObject(req, "tol_scale", job->tol_scale > 0 ? job->tol_scale : 1.0);
  cJSON *mut = cJSON_AddArrayToObject(req, "mutated");
  for (int i = 0; i < job->n_mutated; i++) {
    cJSON *m = cJSON_CreateObject();
    if (job->mutated_input[i] >= 0) cJSON_AddNumberToObject(m, "input", job->mutated_input[i]);
    else cJSON_AddStringToObject(m, "capture", job->mutated_capture[i] ? job->mutated_capture[i] : "");
    cJSON_AddItemToArray(mut, m);
  }
  if (job->grad) {
    cJSON *w = cJSON_AddArrayToObject(req, "weights");
    for (int i = 0; i < job->n_weights; i++) cJSON_AddItemToArray(w, job->weights[i] ? cJSON_CreateString(job->weights[i]) : cJSON_CreateNull());
    cJSON *wa = cJSON_AddArrayToObject(req, "wanted");
    for (int i = 0; i < job->n_outputs; i++) {
      cJSON *m = cJSON_CreateObject();
      if (job->grad_input[i] >= 0) cJSON_AddNumberToObject(m, "input", job->grad_input[i]);
      else cJSON_AddStringToObject(m, "capture", job->grad_capture[i] ? job->grad_capture[i] : "");
      cJSON_AddItemToArray(wa, m);
    }
    cJSON_AddBoolToObject(req, "fd", job->fd);
  }
  char *text = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  kg_strbuf line_out;
  kg_sb_init(&line_out);
  kg_sb_puts(&line_out, text); /* cJSON escapes control characters: one line */
  kg_sb_putc(&line_out, '\n');
  cJSON_free(text);
  int sent = send_all(o, line_out.s, line_out.len);
  int send_errno = errno;
  kg_sb_free(&line_out);

  bool eof = false, timed_out = false;
  char *line = sent ? NULL : read_line(o, o->timeout_s, &eof, &timed_out);
  if (!line) {
    int saved = sent ? send_errno : errno;
    char how[96];
    reap(o, timed_out ? 0 : 2.0, how, sizeof how);
    if (timed_out)
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                  "PyTorch oracle: no answer within %.0f s for %s (%s); the process was killed "
                  "(KGEN_ORACLE_TIMEOUT sets the limit)",
                  o->timeout_s, job->fn, job->script);
    else if (eof || saved == EPIPE || saved == ECONNRESET)
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                  "PyTorch oracle process %s while checking %s (%s); it will be restarted for "
                  "the next job",
                  how, job->fn, job->script);
    else
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "PyTorch oracle: channel error: %s",
                  strerror(saved));
    return -1;
  }

  cJSON *resp = cJSON_Parse(line);
  int rc = -1;
  const cJSON *jid = resp ? cJSON_GetObjectItemCaseSensitive(resp, "id") : NULL;
  const cJSON *ok = resp ? cJSON_GetObjectItemCaseSensitive(resp, "ok") : NULL;
  if (!resp || !cJSON_IsBool(ok) || (cJSON_IsNumber(jid) && jid->valuedouble != (double)id)) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "PyTorch oracle: unexpected response: %.300s",
                line);
    reap(o, 0, NULL, 0); /* out of step: start afresh next time */
  } else if (cJSON_IsFalse(ok)) {
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(resp, "kind");
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(resp, "error");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : "?";
    const char *e = cJSON_IsString(err) ? err->valuestring : "(no message)";
    if (!strcmp(k, "io"))
      kg_diag_add(d, KG_E_IO, NULL, NULL, "PyTorch oracle: %s", e);
    else if (!strcmp(k, "nograd")) /* PyTorch's autograd itself cannot: nothing to compare with */
      kg_diag_add(d, KG_E_UNSUPPORTED, NULL, NULL, "%s", e);
    else if (!strcmp(k, "reference"))
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "PyTorch reference %s failed: %s", job->fn, e);
    else
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "PyTorch oracle (%s error): %s", k, e);
  } else {
    const cJSON *jrows = cJSON_GetObjectItemCaseSensitive(resp, "rows");
    if (!cJSON_IsArray(jrows) || cJSON_GetArraySize(jrows) != job->n_outputs) {
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "PyTorch oracle: response has %d rows, want %d",
                  cJSON_IsArray(jrows) ? cJSON_GetArraySize(jrows) : -1, job->n_outputs);
    } else {
      int i = 0;
      const cJSON *r;
      cJSON_ArrayForEach(r, jrows) {
        kg_oracle_row *row = &rows[i++];
        copy_str(row->dtype, sizeof row->dtype, cJSON_GetObjectItemCaseSensitive(r, "dtype"));
        copy_str(row->shape, sizeof row->shape, cJSON_GetObjectItemCaseSensitive(r, "shape"));
        copy_str(row->verdict, sizeof row->verdict, cJSON_GetObjectItemCaseSensitive(r, "verdict"));
        row->max_abs = json_num(cJSON_GetObjectItemCaseSensitive(r, "max_abs"));
        row->max_rel = json_num(cJSON_GetObjectItemCaseSensitive(r, "max_rel"));
        row->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok"));
        copy_str(row->fd_verdict, sizeof row->fd_verdict, cJSON_GetObjectItemCaseSensitive(r, "fd_verdict"));
        row->fd_max_abs = json_num(cJSON_GetObjectItemCaseSensitive(r, "fd_max_abs"));
        row->fd_ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "fd_ok"));
      }
      rc = 0;
    }
  }
  cJSON_Delete(resp);
  free(line);
  return rc;
}
