/*
 * How long one x86 PAUSE instruction (FreeBSD's cpu_spinwait()) takes on this machine:
 * the virtual-time model's lock.pause_ns. Build and run:
 *
 *   gcc -O2 -o /tmp/pause-latency tools/pause-latency.c && /tmp/pause-latency
 *
 * It times 2e8 PAUSEs five times and prints ns per PAUSE for each round.
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    const long n = 200000000L;
    for (int r = 0; r < 5; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 0; i < n; i++) {
            _mm_pause();
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
        printf("%.2f ns per PAUSE\n", ns / n);
    }
    return 0;
}
