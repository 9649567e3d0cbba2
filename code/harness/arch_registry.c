/*
 * arch_registry.c - every architecture the harness knows, in run order.
 *
 * Tangled from paper/40-harness.md and the chapters that add architectures.
 */
#include <string.h>

#include "harness/arch.h"

const struct architecture *const ARCHITECTURES[] = {
    &arch_in_process,
    &arch_in_process_tuned,
    &arch_in_process_tuned_1core,
    &arch_in_process_control,
    &arch_batch_unix,
    &arch_batch_unix_tuned,
    &arch_chatty_unix,
    &arch_spawn_stdin,
    &arch_stateful_unix,
    &arch_per_bar_unix,
    &arch_spawn_per_combo,
    &arch_batch_tcp,
    &arch_json_unix,
    &arch_json_chatty_unix,
    &arch_batch_shm,
    NULL,
};

const struct architecture *architecture_named(const char *name)
{
    for (size_t i = 0; ARCHITECTURES[i] != NULL; i++)
        if (strcmp(ARCHITECTURES[i]->name, name) == 0)
            return ARCHITECTURES[i];
    return NULL;
}
