/*
 * kernel_tuned_rows.h - the tuned kernel's three loops at one vector width.
 *
 * Tangled from paper/35-tuned-kernel.md. kernel_tuned.c includes it once per
 * width with ROWS_BYTES, ROWS_BLOCKS, ROWS_STEPS, ROWS_TARGET and ROWS(name)
 * defined, so it has no include guard.
 */
ROWS_TARGET static void ROWS(wma_rows)(const double *in, size_t rows, int64_t n,
                                       const double *weights, double weight_sum, double *out)
{
    typedef double lanes __attribute__((vector_size(ROWS_BYTES)));
    enum { BLOCKS = ROWS_BLOCKS, STEPS = ROWS_STEPS };
    /* <<sum-a-block-of-rows-at-once>>, paper/35-tuned-kernel.md */
    /* Lane i of s[b] holds the running sum of row m + b of column i. */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t m = 0; m < rows; m += BLOCKS) {
        const double *window = in + ((ptrdiff_t)m - (ptrdiff_t)(n - 1)) * LANES;
        lanes s[BLOCKS] = {0};
        int64_t j = 0;
        for (; j + STEPS <= n; j += STEPS) {       /* STEPS positions on the rows they read */
            lanes x[BLOCKS + STEPS - 1];
    #pragma GCC unroll 32
            for (int k = 0; k < BLOCKS + STEPS - 1; k++)
                memcpy(&x[k], window + (j + k) * LANES, sizeof x[k]);   /* one whole row */
    #pragma GCC unroll 16
            for (int u = 0; u < STEPS; u++)
    #pragma GCC unroll 16
                for (int b = 0; b < BLOCKS; b++)
                    s[b] = s[b] + x[u + b] * weights[j + u];
        }
        for (; j < n; j++)                         /* the positions left over, one at a time */
    #pragma GCC unroll 16
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + (j + b) * LANES, sizeof terms);
                s[b] = s[b] + terms * weights[j];
            }
    #pragma GCC unroll 16
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + (m + b) * LANES, &mean, sizeof mean);
        }
    }
}

ROWS_TARGET static void ROWS(mix_rows)(double *fast, const double *middle, const double *slow,
                                       size_t rows)
{
    typedef double lanes __attribute__((vector_size(ROWS_BYTES)));
    /* <<mix-the-averages-row-by-row>>, paper/35-tuned-kernel.md */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t r = 0; r < rows; r++) {
        lanes a, b, c;
        memcpy(&a, fast + r * LANES, sizeof a);
        memcpy(&c, slow + r * LANES, sizeof c);
        if (middle == NULL) {
            a = 2.0 * a - c;
        } else {
            memcpy(&b, middle + r * LANES, sizeof b);
            a = (3.0 * a - b) - c;
        }
        memcpy(fast + r * LANES, &a, sizeof a);
    }
}

ROWS_TARGET static size_t ROWS(crossing_rows)(const double *hma, const double *hma3,
                                              size_t rows, struct row_event *events)
{
    typedef double lanes __attribute__((vector_size(ROWS_BYTES)));
    /* <<find-the-rows-where-the-lines-may-cross>>, paper/35-tuned-kernel.md */
    typedef int64_t truth __attribute__((vector_size(sizeof(lanes))));   /* -1 true, 0 false */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    size_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        lanes before, before3, now, now3;
        memcpy(&before, hma + ((ptrdiff_t)r - 1) * LANES, sizeof before);
        memcpy(&before3, hma3 + ((ptrdiff_t)r - 1) * LANES, sizeof before3);
        memcpy(&now, hma + r * LANES, sizeof now);
        memcpy(&now3, hma3 + r * LANES, sizeof now3);
        truth cross = ((before <= before3) & (now > now3)) | ((before >= before3) & (now < now3));
        truth lane_bit, picked;
        for (int i = 0; i < LANES; i++)
            lane_bit[i] = (int64_t)1 << i;
        picked = cross & lane_bit;
        int64_t bits = 0;
        for (int i = 0; i < LANES; i++)
            bits |= picked[i];
        events[count] = (struct row_event){r, (unsigned)bits};   /* kept only if a bit is set */
        count += bits != 0;
    }
    return count;
}

#undef ROWS_BYTES
#undef ROWS_BLOCKS
#undef ROWS_STEPS
#undef ROWS_TARGET
#undef ROWS
