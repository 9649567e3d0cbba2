/*
 * model.h - every file of data/, loaded once into typed rows.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_MODEL_H
#define IPCTAX_MODEL_H

#include <stddef.h>

struct kv {
    char key[128];
    char value[512];
};

struct kv_file {
    struct kv *rows;
    size_t n;
};

/* The value of key, or NULL. */
const char *kv_get(const struct kv_file *f, const char *key);
/* The value of key as a number, or NAN when it is absent or not a number. */
double kv_number(const struct kv_file *f, const char *key);

struct run_row {               /* architectures.csv: one timed run */
    char architecture[64], pairing[16];
    long round, position, unit, slot, run, bars, combos;
    double partner;                    /* the run it ran beside; NAN if none */
    char status[16];
    double start_s, seconds, client_cpu_s, engine_cpu_s;
    char cpus_allowed[32];
    double cpu_start, cpu_end, engine_cpu, client_minor_faults, engine_minor_faults;
};

struct call_row {              /* calls.csv: one boundary call */
    char architecture[64];
    long round, run, call;
    double rtt_ns, encode_ns, send_ns, wait_ns, receive_ns, decode_ns;
    double engine_ns, engine_decode_ns, compute_ns, engine_encode_ns, engine_cpu_ns;
    double process_ns, process_cpu_ns, process_minor_faults, request_bytes, reply_bytes;
};

struct gate_row {              /* gate.csv: one architecture's verdict */
    char architecture[64];
    long combos, identical;
    double max_abs_pnl_diff;
    char verdict[16];
    char error[256];
};

struct sweep_row {             /* sweep.csv: the reference result of one combination */
    long combo, L, h_half, h_len, h_sqrt, t_third, t_half, t_len;
    double pnl;
    long trades;
};

struct echo_row {              /* echo.csv: one round trip */
    char client[16], transport[16], placement[8], mode[24];
    long client_cpu, engine_cpu, floats, bytes, pass, block, rep;
    double rtt_ns, engine_ns;
};

struct cold_row {              /* cold.csv: a fresh engine's first call, or its second */
    char client[16];
    long rep;
    char warmth[8];
    long cpu, engine_cpu;
    double rtt_ns, encode_ns, send_ns, wait_ns, receive_ns, decode_ns, engine_ns;
    double engine_decode_ns, compute_ns, engine_encode_ns, client_minor_faults;
    double engine_minor_faults, request_bytes, reply_bytes;
};

struct serial_row {            /* serialization.csv: one encode or decode */
    char language[16], format[16], operation[16];
    long rep;
    double ns, bytes;
};

struct spawn_row {             /* spawn.csv: one spawned call */
    char kind[16];
    long rep, combo;
    double rtt_ns, process_ns, process_cpu_ns, minor_faults, compute_ns;
};

struct layout_row {            /* layout.csv: one reduced sweep */
    char side[32];
    double code_shift;
    long series_offset, array_offset, array_stagger, pass;
    double seconds;
};

struct roof_row {              /* roofline.csv: one timed peak loop */
    char kind[16];
    long lanes, threads, pass;
    double flops, seconds;
};

struct count_row {             /* counts.csv: instructions or system calls */
    char side[16], what[32];
    long requests;
    double value;
};

struct original_row {          /* original.csv: one of the original study's figures */
    char key[128], value[256], unit[32], source[128];
};

#define ROWS(type, name) \
    struct type *name;   \
    size_t n_##name

struct run_data {
    struct kv_file machine, run, oracle, load, valgrind, fuzz, echo_settings, roof_settings;
    ROWS(run_row, runs);
    ROWS(call_row, calls);
    ROWS(gate_row, gates);
    ROWS(sweep_row, sweep);
    ROWS(echo_row, echo);
    ROWS(cold_row, cold);
    ROWS(serial_row, serial);
    ROWS(spawn_row, spawns);
    ROWS(layout_row, layout);
    ROWS(roof_row, roof);
    ROWS(count_row, counts);
    ROWS(original_row, original);
};
#undef ROWS

/* Loads every file of dir; 0, or -1 with a message in err (nothing kept). */
int run_data_load(struct run_data *d, const char *dir, char *err, size_t err_size);
void run_data_free(struct run_data *d);

#endif
