/* SPDX-License-Identifier: MIT */
/* cmd_status.c: `status` (what runs in the lab, what is mounted there, how
 * to enter it from outside) and `cleanup`.
 */
#include "cmd/cmd.h"
#include "lab/lab.h"
#include "procfs/procfs.h"
#include "render/tee.h"
#include "tutor/tutor.h"

#include <stdlib.h>
#include <string.h>

/* One row a job: [ID], its state, its PIDs, its command (which wraps
 * under itself). */
static void list_jobs(struct shell *sh)
{
    const struct lab_job *jobs = NULL;
    size_t n = lab_jobs(sh->lab, &jobs);

    if (n == 0) {
        render_text(&sh->render, RENDER_PLAIN, "Nothing runs in the background.");
        return;
    }
    char(*text)[2][64] = calloc(n, sizeof *text);
    const char **cells = calloc(n * 4, sizeof *cells);
    for (size_t i = 0; text != NULL && cells != NULL && i < n; i++) {
        snprintf(text[i][0], sizeof text[i][0], "[%d]", jobs[i].id);
        snprintf(text[i][1], sizeof text[i][1], "PID %d in the lab (%d outside)",
                 (int)jobs[i].lab_pid, (int)jobs[i].pid);
        cells[4 * i] = text[i][0];
        cells[4 * i + 1] = jobs[i].running ? "running" : "ended";
        cells[4 * i + 2] = text[i][1];
        cells[4 * i + 3] = jobs[i].command;
    }
    if (text != NULL && cells != NULL)
        render_table(&sh->render, RENDER_PLAIN, 0, cells, n, 4);
    else
        shell_error(sh, "out of memory");
    free(cells);
    free(text);
}

/* The procfs mounts made in the lab, from the keeper's mount table: its own
 * /proc and those inherited from the host (another program's) are left out. */
static void list_mounts(struct shell *sh)
{
    struct procfs_mount_table table;
    int shown = 0;

    if (procfs_read_mounts("/proc", lab_keeper_pid(sh->lab), &table) == 0) {
        for (size_t i = 0; i < table.count; i++) {
            const struct procfs_mount *m = &table.mounts[i];
            if (strcmp(m->fstype, "proc") != 0 || strcmp(m->mount_point, "/proc") == 0 ||
                strncmp(m->mount_point, "/proc/", 6) == 0 ||
                !lab_mount_is_new(sh->lab, m->mount_id))
                continue;
            render_textf(&sh->render, RENDER_PLAIN, "procfs mounted at %s", m->mount_point);
            shown++;
        }
        procfs_mounts_free(&table);
    }
    if (shown == 0)
        render_text(&sh->render, RENDER_PLAIN, "No procfs is mounted in the lab besides /proc.");
}

int cmd_status(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    list_jobs(sh);
    list_mounts(sh);
    /* The command on a line of its own, so that wrapping never splits it. */
    render_text(&sh->render, RENDER_NOTE,
                "Another terminal sees none of this; to enter the lab from one, run:");
    render_textf(&sh->render, RENDER_COMMAND, "    %s", lab_nsenter_command(sh->lab));
    return SHELL_OK;
}

int cmd_cleanup(struct shell *sh, int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "-v") != 0)
        return SHELL_USAGE;
    int removed = tutor_cleanup(sh, argc == 2);
    tee_reap(200);
    if (removed < 0) {
        shell_error(sh, "cleanup did not finish; `status` shows what is left");
        return SHELL_ERROR;
    }
    if (removed == 0)
        render_text(&sh->render, RENDER_GOOD,
                    "Nothing to clean up: the lab is as fresh as at "
                    "the start.");

    return SHELL_OK;
}
