/*
 * fuzz_launcher_output.c: libFuzzer target for what loomrun decodes from
 * its ranks at run time besides PMIx (whose messages libpmix parses): the
 * line forwarder loomrun_proc_stream_read (launcher/loomrun_proc.c), which
 * splits each rank's stdout/stderr into lines and prefixes them ("[3] ")
 * with --tag-output. The rank writes arbitrary bytes, in pieces the input
 * chooses, into a real pipe.
 *
 * Input: byte 0 bit 0 = tagged output, the other bits seed the piece sizes;
 * the rest is what the rank writes. Checked beyond "no crash": untagged
 * output is byte-for-byte the input; tagged output, with the "[7] " at each
 * line start removed, is the input plus one final newline if the last line
 * had none.
 *
 * The launcher's other control channel, the PMIx thread -> loop event pipe
 * (loomrun_event_t, written whole by loomrun's own thread), carries no
 * outside bytes and is not fuzzed.
 */
#include "loomrun_int.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_output(int out, const uint8_t *in, size_t n, int tagged)
{
    off_t len = lseek(out, 0, SEEK_END);
    uint8_t *got = malloc((size_t)len + 1);
    size_t i = 0, j = 0;

    if (got == NULL || pread(out, got, (size_t)len, 0) != len) {
        abort();
    }
    if (!tagged) {
        if ((size_t)len != n || memcmp(got, in, n) != 0) {
            __builtin_trap();
        }
        free(got);
        return;
    }
    while (j < (size_t)len) {
        if ((size_t)len - j < 4 || memcmp(got + j, "[7] ", 4) != 0) {
            __builtin_trap();              /* a line without its prefix */
        }
        j += 4;
        while (j < (size_t)len && got[j] != '\n') {
            if (i >= n || got[j++] != in[i++]) {
                __builtin_trap();
            }
        }
        if (j == (size_t)len) {
            __builtin_trap();              /* the last line must end */
        }
        ++j;
        if (i < n && in[i] == '\n') {
            ++i;
        } else if (i != n) {
            __builtin_trap();              /* a line break that was not there */
        }
    }
    if (i != n) {
        __builtin_trap();                  /* bytes lost */
    }
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static loomrun_job_t job;
    static loomrun_rank_t rk;
    int fds[2], out;
    uint32_t rng;
    size_t off = 1;

    if (size < 1 || pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
        return 0;
    }
    out = memfd_create("fuzz-out", MFD_CLOEXEC);
    if (out < 0) {
        abort();
    }
    memset(&job, 0, sizeof(job));
    memset(&rk, 0, sizeof(rk));
    job.opts.tag_output = data[0] & 1;
    job.emit = loomrun_hang_emit;   /* a single host's output hook (no hang report here) */
    rk.rank = 7;
    rk.out[0].fd = fds[0];
    rk.out[0].out_fd = out;
    rk.out[1].fd = -1;
    rng = data[0] * 2654435761u;
    while (off < size) {
        size_t piece;
        rng = rng * 1103515245u + 12345u;
        piece = 1 + (rng >> 16) % 700;
        piece = piece < size - off ? piece : size - off;
        for (size_t done = 0; done < piece;) {
            ssize_t w = write(fds[1], data + off + done, piece - done);
            if (w < 0) {
                loomrun_proc_stream_read(&job, &rk, 0);   /* pipe full: drain */
                continue;
            }
            done += (size_t)w;
        }
        off += piece;
        if ((rng >> 8) % 3 != 0) {
            loomrun_proc_stream_read(&job, &rk, 0);
        }
    }
    close(fds[1]);
    while (rk.out[0].fd >= 0) {
        loomrun_proc_stream_read(&job, &rk, 0);
    }
    check_output(out, data + 1, size - 1, job.opts.tag_output);
    close(out);
    return 0;
}
