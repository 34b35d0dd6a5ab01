package io.github.dmarflush.sim.workload;

import io.github.dmarflush.sim.hw.PhysicalMemory;

/** Stamping a payload so the receiving side can tell it arrived, and checking it. */
final class Payloads {

    private Payloads() {
    }

    /** Writes the 8-byte stamp at the start of {@code payload} (fewer bytes if it is shorter). */
    static void stamp(byte[] payload, long stamp) {
        int k = Math.min(8, payload.length);
        for (int i = 0; i < k; i++) {
            payload[i] = (byte) (stamp >>> (8 * i));
        }
    }

    /** Whether the stamp and the payload's last byte are in memory at {@code pa}. */
    static boolean arrived(PhysicalMemory memory, long pa, byte[] payload, long stamp) {
        int k = Math.min(8, payload.length);
        for (int i = 0; i < k; i++) {
            if (memory.read(pa + i) != (byte) (stamp >>> (8 * i))) {
                return false;
            }
        }
        return memory.read(pa + payload.length - 1) == payload[payload.length - 1];
    }

    /** Whether {@code buf[off..]} starts with the stamp. */
    static boolean stamped(byte[] buf, int off, long stamp) {
        int k = Math.min(8, buf.length - off);
        for (int i = 0; i < k; i++) {
            if (buf[off + i] != (byte) (stamp >>> (8 * i))) {
                return false;
            }
        }
        return true;
    }

    /** Writes the stamp into memory at {@code pa} (a CPU filling its buffer). */
    static void stampMemory(PhysicalMemory memory, long pa, long stamp, int len, byte[] scratch) {
        int k = Math.min(8, len);
        for (int i = 0; i < k; i++) {
            scratch[i] = (byte) (stamp >>> (8 * i));
        }
        memory.write(pa, scratch, 0, k);
    }
}
