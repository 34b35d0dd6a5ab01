package io.github.dmarflush.flushlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.dmarflush.flushlist.qi.QiSequencer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * The memory orderings the list and the QI protocol rely on, read from the compiled
 * classes: each shared access named in the implementation notes uses the access mode they
 * give it.
 *
 * <p>Why a check of the code and not of its behaviour: on x86 a plain store where a release
 * store belongs, or a plain load where an acquire load belongs, passes every run-time test
 * of this project. The CPU keeps stores in order and loads in order (TSO), so only the JIT
 * could move the entry's field stores past the store that links it, and C2 did not in the
 * jcstress runs, 768 million samples with its scheduling-stress flags included (README,
 * "Stress tests", M2P). Lincheck and TLC see sequentially consistent executions. The bug
 * would show on AArch64 or POWER. This test fails at once on such a change, naming the
 * access and what it orders. It checks the declared modes, not that they suffice: that is
 * the TLA+ model's job ({@code PLinkEarly}, {@code WaitersStoreBuffered}) and jcstress's.
 *
 * <p>A stronger mode than the one required (volatile for acquire or release) passes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AccessModeTest {

    private static final String VAR_HANDLE = "java/lang/invoke/VarHandle";
    private static final Set<String> RELEASE_OR_STRONGER = Set.of("setRelease", "setVolatile");
    private static final Set<String> ACQUIRE_OR_STRONGER = Set.of("getAcquire", "getVolatile");
    private static final String ENTRY = "io/github/dmarflush/flushlist/FlushEntry";

    // --- FlushEntry: the accessors carry the ordering in their names ---

    @Test
    void soNextIsAReleaseStore() throws Exception {
        List<String> modes = varHandleCalls(method(FlushEntry.class, "soNext"), "NEXT");
        assertEquals(1, modes.size(), "soNext makes one access to NEXT: " + modes);
        assertTrue(RELEASE_OR_STRONGER.contains(modes.get(0)), "FlushEntry.soNext stores the link with VarHandle."
                + modes.get(0) + ": it must be setRelease, the release store that publishes an entry's fields"
                + " (wait sequence, range) with the link that makes it reachable");
    }

    @Test
    void laNextIsAnAcquireLoad() throws Exception {
        List<String> modes = varHandleCalls(method(FlushEntry.class, "laNext"), "NEXT");
        assertEquals(1, modes.size(), "laNext makes one access to NEXT: " + modes);
        assertTrue(ACQUIRE_OR_STRONGER.contains(modes.get(0)), "FlushEntry.laNext loads the link with VarHandle."
                + modes.get(0) + ": it must be getAcquire, so that the fields of the entry it returns are the"
                + " ones the producer wrote before its release store");
    }

    // --- ZombieHeadFlushList: publication and consumption ---

    @Test
    void enqueuePublishesTheEntryWithAReleaseStoreIntoTheTailsLink() throws Exception {
        Method m = method(ZombieHeadFlushList.class, "enqueue");
        List<String> tailLinkWrites = new ArrayList<>();
        for (int i = 0; i < m.node.instructions.size(); i++) {
            AbstractInsnNode insn = m.node.instructions.get(i);
            if (insn instanceof MethodInsnNode call && call.owner.equals(ENTRY)
                    && (call.name.equals("soNext") || call.name.equals("spNext"))
                    && receiverComesFromField(m.frames[i], call, "tail")) {
                tailLinkWrites.add(call.name);
            }
        }
        assertEquals(List.of("soNext"), tailLinkWrites, "ZombieHeadFlushList.enqueue must link the entry with"
                + " exactly one tail.soNext(entry), the release store that publishes the entry's wait sequence"
                + " and range to the consumer (the linearization point); found " + tailLinkWrites);
    }

    @Test
    void drainAndIsEmptyReadEveryLinkWithAnAcquireLoad() throws Exception {
        for (String name : List.of("drain", "isEmpty")) {
            List<String> reads = entryCalls(method(ZombieHeadFlushList.class, name), Set.of("laNext", "nextPlain"));
            assertFalse(reads.isEmpty(), name + " reads no link?");
            assertTrue(reads.stream().allMatch("laNext"::equals), "ZombieHeadFlushList." + name
                    + " reads a link with a plain load " + reads + ": every link the consumer follows must be"
                    + " read with laNext, the acquire load that pairs with enqueue's release store, or it can"
                    + " see the entry before the producer's writes to it");
        }
    }

    @Test
    void theDrainerSlotIsHandedOverWithAcquireAndRelease() throws Exception {
        // As a set: javac copies the finally block (normal and exceptional exit).
        Set<String> modes = new TreeSet<>(varHandleCalls(method(ZombieHeadFlushList.class, "drain"), "DRAINER"));
        assertEquals(new TreeSet<>(Set.of("getAcquire", "compareAndExchange", "setRelease")), modes,
                "ZombieHeadFlushList.drain must read the drainer slot with an acquire load (the fast path then sees the last drainer's"
                + " head), claim it with a CAS, and clear it with a release store (the next drainer sees this"
                + " one's head)");
    }

    // --- QiSequencer: the fields read without the unit lock, and the wrap's order ---

    @Test
    void theSequencerFieldsReadWithoutTheLockAreVolatile() throws Exception {
        for (String field : List.of("gen", "seqHw", "waiters")) {
            assertTrue(Modifier.isVolatile(QiSequencer.class.getDeclaredField(field).getModifiers()),
                    "QiSequencer." + field + " must be volatile: it is read without the unit lock (drain, QI task)"
                            + (field.equals("seqHw") ? "; the drain's read of it is the acquire that makes the"
                                    + " hardware's completed invalidation visible before an IOVA range is reused" : "")
                            + (field.equals("waiters") ? "; a plain increment can sit in the store buffer past the"
                                    + " waiter's load of seqHw and lose its wakeup (M6)" : ""));
        }
    }

    @Test
    void processedReadsGenBeforeSeqHw() throws Exception {
        List<String> reads = fieldAccesses(method(QiSequencer.class, "processed"), Opcodes.GETFIELD,
                Set.of("gen", "seqHw"));
        assertEquals(List.of("gen", "seqHw"), reads, "QiSequencer.processed must load gen before seqHw: the wrap"
                + " resets seqHw before it advances gen, so a new gen read first implies the reset seqHw; read"
                + " the other way round, an old seqHw (0xFFFFFFFF) with the new gen makes every entry of the new"
                + " generation read processed");
    }

    @Test
    void theWrapResetsSeqHwBeforeItAdvancesGen() throws Exception {
        List<String> writes = fieldAccesses(method(QiSequencer.class, "emitWaitSeq"), Opcodes.PUTFIELD,
                Set.of("gen", "seqHw"));
        assertEquals(List.of("seqHw", "gen"), writes, "QiSequencer.emitWaitSeq must reset seqHw before it"
                + " advances gen (both volatile stores): with gen first, a drain can read the new gen with the old"
                + " generation's seqHw (0xFFFFFFFF) and release entries of the new generation before the hardware"
                + " completed them");
    }

    // --- reading class files ---

    /** A method's instructions and, for each, the stack frame before it (sources of values). */
    private record Method(MethodNode node, Frame<SourceValue>[] frames) {
    }

    private static Method method(Class<?> cls, String name) throws IOException, AnalyzerException {
        ClassNode cn = new ClassNode();
        try (InputStream in = cls.getResourceAsStream(cls.getSimpleName() + ".class")) {
            if (in == null) {
                fail("class file of " + cls.getName() + " not found");
            }
            new ClassReader(in).accept(cn, 0);
        }
        MethodNode found = null;
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals(name) && (mn.access & Opcodes.ACC_BRIDGE) == 0
                    && (mn.access & Opcodes.ACC_SYNTHETIC) == 0) {
                if (found != null) {
                    fail(cls.getSimpleName() + " has more than one method " + name);
                }
                found = mn;
            }
        }
        if (found == null) {
            fail(cls.getSimpleName() + " has no method " + name);
        }
        return new Method(found, new Analyzer<>(new SourceInterpreter()).analyze(cn.name, found));
    }

    /** The VarHandle methods called, in code order, on the static field {@code handle}. */
    private static List<String> varHandleCalls(Method m, String handle) {
        List<String> modes = new ArrayList<>();
        for (int i = 0; i < m.node.instructions.size(); i++) {
            AbstractInsnNode insn = m.node.instructions.get(i);
            if (insn instanceof MethodInsnNode call && call.owner.equals(VAR_HANDLE)
                    && receiverComesFromField(m.frames[i], call, handle)) {
                modes.add(call.name);
            }
        }
        return modes;
    }

    /** The calls to FlushEntry methods among {@code names}, in code order. */
    private static List<String> entryCalls(Method m, Set<String> names) {
        List<String> calls = new ArrayList<>();
        for (AbstractInsnNode insn : m.node.instructions) {
            if (insn instanceof MethodInsnNode call && call.owner.equals(ENTRY) && names.contains(call.name)) {
                calls.add(call.name);
            }
        }
        return calls;
    }

    /** The accesses with {@code opcode} (GETFIELD, PUTFIELD) to fields among {@code names}, in code order. */
    private static List<String> fieldAccesses(Method m, int opcode, Set<String> names) {
        List<String> accesses = new ArrayList<>();
        for (AbstractInsnNode insn : m.node.instructions) {
            if (insn instanceof FieldInsnNode f && f.getOpcode() == opcode && names.contains(f.name)) {
                accesses.add(f.name);
            }
        }
        return accesses;
    }

    /**
     * Whether the receiver of {@code call} (for a VarHandle call, the handle itself) may
     * come from reading the field {@code field}.
     */
    private static boolean receiverComesFromField(Frame<SourceValue> frame, MethodInsnNode call, String field) {
        if (frame == null) {
            return false; // unreachable code
        }
        int args = Type.getArgumentTypes(call.desc).length;
        SourceValue receiver = frame.getStack(frame.getStackSize() - args - 1);
        for (AbstractInsnNode source : receiver.insns) {
            if (source instanceof FieldInsnNode f && f.name.equals(field)) {
                return true;
            }
        }
        return false;
    }
}
