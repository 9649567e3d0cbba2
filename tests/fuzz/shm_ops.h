/*
 * shm_ops.h - the little language of tests/fuzz/fuzz_shm.c, shared with the
 * seed generator (tests/fuzz/seeds.c).
 *
 * An input is a list of operations, each an opcode byte followed by its
 * operands. The opcode is taken modulo SHM_OP_COUNT, so every byte is an
 * operation; an operand cut short by the end of the input is zero.
 */
#ifndef IPCTAX_SHM_OPS_H
#define IPCTAX_SHM_OPS_H

enum shm_op {
    SHM_OP_POKE_HEADER,    /* u16 offset, u8 n, n bytes: into the control page */
    SHM_OP_POKE_RINGS,     /* u16 offset, u8 n, n bytes: into the rings' bytes */
    SHM_OP_ENGINE_READ,    /* u16 n: the engine reads n bytes, deadline now */
    SHM_OP_ENGINE_WRITE,   /* u16 n: the engine writes n bytes, deadline now */
    SHM_OP_ENGINE_ACCEPT,  /* the engine looks for a client, deadline now */
    SHM_OP_ENGINE_RELEASE, /* the engine ends its session */
    SHM_OP_ENGINE_SERVE,   /* the engine serves one request from the rings */
    SHM_OP_CLIENT_ATTACH,  /* u8 mode: this process attaches, no retrying */
    SHM_OP_CLIENT_WRITE,   /* u16 n: the client writes the next n bytes of a stream of
                            * echo requests (each SHM_FUZZ_ECHO_FRAME bytes), deadline now */
    SHM_OP_CLIENT_READ,    /* u16 n: the client reads n bytes, deadline now */
    SHM_OP_CLIENT_DETACH,  /* the client leaves */
    SHM_OP_TRUNCATE,       /* u32 size: the segment's file is cut to size % (size + 1) */
    SHM_OP_COUNT
};

/* The rings of a fuzzed channel: small, so that frames wrap. The client's
 * stream is echo requests of two doubles: 4 + 9 + 16 bytes each. */
enum { SHM_FUZZ_RING_BYTES = 256, SHM_FUZZ_ECHO_FRAME = 29 };

#endif
