------------------------------ MODULE QiFlushList ------------------------------
(***************************************************************************)
(* The zombie-head TLB flush list of one DMAR unit and the queued-         *)
(* invalidation (QI) protocol around it, as FreeBSD sys/x86/iommu writes   *)
(* them (iommu_utils.c, intel_qi.c) and as the Java library of this        *)
(* repository implements them (module flushlist: ZombieHeadFlushList,      *)
(* QiSequencer, QiTask).                                                   *)
(*                                                                         *)
(* Components, each an interleaving of atomic steps:                       *)
(*  - Producers (iommu_domain_unload -> iommu_qi_invalidate_locked): take  *)
(*    the unit lock, take an element from a bounded pool, queue an IOTLB   *)
(*    invalidation descriptor and a wait descriptor with a fresh (gen,     *)
(*    seq) into a bounded ring, link the entry into the flush list, then   *)
(*    advance the queue tail (IQT).                                        *)
(*  - Synchronous waiters (iommu_qi_invalidate_sync): the same emission,   *)
(*    then register in inv_seq_waiters, advance IQT, and re-check / sleep  *)
(*    (msleep with an optional timeout) until their seq is processed.      *)
(*  - The hardware: consumes visible descriptors in ring order, marks an   *)
(*    invalidation complete, does the status write of a wait descriptor,   *)
(*    and sets ICS.IWC, raising the completion interrupt only when IWC     *)
(*    goes from 0 to 1.                                                    *)
(*  - The QI task (dmar_qi_task, QiTask.run): drain, clear IWC, drain      *)
(*    again, wake the waiters under the unit lock.                         *)
(*                                                                         *)
(* What is modelled exactly: the order of every store the protocol relies  *)
(* on, as separate steps where another component can run in between; the   *)
(* 32-bit sequence wraparound of iommu_qi_emit_wait_seq with the wrap      *)
(* threshold 2^SeqBits - 1 instead of 0xFFFFFFFF, so that small models     *)
(* cross it; and a bounded pool of recycled elements, so that "the tail is *)
(* never freed" is a checkable fact.                                       *)
(*                                                                         *)
(* What is not: the model is sequentially consistent. A missing release or *)
(* acquire (plain store of the link, plain load of seqHw) is invisible     *)
(* here; that is jcstress's job. The one exception is the x86-TSO store    *)
(* buffer of the waiter's inv_seq_waiters++ (WaitersStoreBuffered): it is  *)
(* the reordering FreeBSD's "increment before advancing the tail" rule     *)
(* defends against, and without it breaking the rule loses no wakeup      *)
(* (model M6SC). The other is seeded bug M2P (a plain store of the link):  *)
(* the link may become visible before the entry's (gen, seq), as the Java  *)
(* memory model allows for a plain store. One drain iteration, one descriptor, and a processed test *)
(* (reads of gen and seqHw) are each one step. Range splitting, batch      *)
(* coalescing (emit_wait = false), the spinning (nowait) waiter, interrupt *)
(* masking and queue errors are left out.                                  *)
(*                                                                         *)
(* Invariants (see the definitions below): TypeOK, TailNotInPool,          *)
(* ZombieNotInPool, NoReleaseBeforeInvalidated, NoWaiterReturnsEarly,      *)
(* ReleasedInEnqueueOrder, RingSeqIncreasing. Temporal properties:         *)
(* EveryItemReleased, EveryWaiterReturns.                                  *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets

CONSTANTS
    Producers,            \* threads that unload map entries onto the flush list
    ItemsPerProducer,     \* entries each producer unloads, one lock hold each
    Waiters,              \* threads doing one synchronous invalidation each
    PoolSize,             \* elements in the pool besides the initial dummy zombie
    RingSize,             \* descriptors the invalidation queue holds
    SeqBits,              \* sequence numbers are SeqBits wide: wrap at 2^SeqBits - 1
    InitSeq,              \* the first seq handed out, as QiSequencer.Builder.startAt
    ResetSeqHwOnWrap,     \* TRUE: QiSequencer (seqHw := 0 before gen++);
                          \* FALSE: iommu_qi_emit_wait_seq exactly as FreeBSD writes it
    SleepTimeout,         \* TRUE: the waiter's msleep/awaitNanos has a timeout
    WaitersStoreBuffered, \* TRUE: inv_seq_waiters++ may sit in the waiter's store buffer
    Bug                   \* "none", or a seeded bug "M1" .. "M9" (see Bugs)

(* The seeded bugs, each a one-line change of one action:
     M1  the drain retires the new zombie instead of the old one
     M2  the entry is linked before its (gen, seq) is written (M2L in seeded-bugs)
     M2P the link is a plain store, not a release store: the link may become
         visible before the entry's (gen, seq) (see PLinkEarly)
     M3  the drain's processed test is off by one (seq <= seqHw + 1)
     M4  sequence numbers are compared signed
     M5  the wrap bumps gen without waiting for the old generation's last seq
     M6  the waiter registers after advancing the tail
     M7  the task wakes the waiters without taking the unit lock
     M8  the task does not drain again after clearing IWC
     M9  the tail is advanced past the wait descriptor before the entry is linked
   and three more, so that every invariant has a variant that breaks it:
     PushFront   the producer links the entry right after the zombie, not at the tail
     SeqStuck    emitWaitSeq hands out nextSeq without incrementing it
     NoRegister  the waiter never increments inv_seq_waiters (FreeBSD's KASSERT
                 in iommu_qi_wait_for_seq, QiSequencer's IllegalStateException) *)
Bugs == {"none", "M1", "M2", "M2P", "M3", "M4", "M5", "M6", "M7", "M8", "M9",
         "PushFront", "SeqStuck", "NoRegister"}

ASSUME /\ Producers \cap Waiters = {}
       /\ ItemsPerProducer \in Nat
       /\ PoolSize \in Nat \ {0}
       /\ RingSize \in Nat \ {0}
       /\ SeqBits \in Nat /\ SeqBits >= 2
       /\ InitSeq \in 1 .. 2^SeqBits - 1
       /\ ResetSeqHwOnWrap \in BOOLEAN
       /\ SleepTimeout \in BOOLEAN
       /\ WaitersStoreBuffered \in BOOLEAN
       /\ Bug \in Bugs

Procs    == Producers \cup Waiters
NoProc   == "nobody"                       \* the unit lock is free
Null     == -1                             \* the NULL link
Elems    == 0 .. PoolSize                  \* element 0 is the initial dummy zombie
NItems   == Cardinality(Producers) * ItemsPerProducer
ItemIds  == 1 .. NItems                    \* numbered in enqueue (lock) order
InvIds   == ItemIds \cup Waiters           \* whose invalidation a descriptor carries
SeqWrap  == 2^SeqBits - 1                  \* FreeBSD: 0xffffffff
Seqs     == 0 .. SeqWrap

(* Unsigned comparison, and the signed one of bug M4: SeqBits-bit two's complement. *)
Signed(s) == IF s >= 2^(SeqBits - 1) THEN s - 2^SeqBits ELSE s
SeqLeq(a, b) == IF Bug = "M4" THEN Signed(a) <= Signed(b) ELSE a <= b

VARIABLES
    \* the unit lock and the threads that take it
    lock,         \* NoProc or the holder (DMAR_LOCK / the Lock given to QiSequencer)
    pc,           \* [Procs -> step]
    cnt,          \* [Producers -> entries unloaded so far]
    elem,         \* [Producers -> the element being enqueued, or Null]
    wgs,          \* [Waiters -> the (gen, seq) waited for]
    wbuf,         \* [Waiters -> an inv_seq_waiters++ still in the store buffer]
    \* the flush list (struct x86_unit_common: tlb_flush_head, tlb_flush_tail)
    head,         \* the zombie (tlb_flush_head, ZombieHeadFlushList.head)
    tail,         \* the last element (tlb_flush_tail, ZombieHeadFlushList.tail)
    next,         \* [Elems -> Elems \cup {Null}]: tlb_flush_next, FlushEntry.next
    egs,          \* [Elems -> (gen, seq)]: iommu_map_entry.gseq, FlushEntry.waitSeq
    eitem,        \* [Elems -> item id]: the IOVA range the element carries (0: none)
    pool,         \* free elements (the UMA zone; the Reclaimer's pool)
    nextItem,     \* ghost: id of the next item to unload
    linked,       \* ghost: items 1..linked have been linked
    released,     \* ghost: items whose IOVA range has been given back
    \* the wait-sequence state (inv_waitd_gen, inv_waitd_seq, inv_waitd_seq_hw,
    \* inv_seq_waiters; QiSequencer.gen, nextSeq, seqHw, waiters)
    gen, nextSeq, seqHw, waiters,
    \* the hardware
    ring,         \* descriptors written by software and not yet consumed (from IQH on)
    iqt,          \* how many of them IQT has made visible to the hardware
    iwc,          \* ICS.IWC
    invDone,      \* ghost: ids whose IOTLB invalidation the hardware has completed
    taskPending,  \* the QI task is enqueued on its taskqueue (dmar_qi_intr)
    \* the QI task
    tpc

procVars == <<lock, pc, cnt, elem, wgs, wbuf>>
listVars == <<head, tail, next, egs, eitem, pool, nextItem, linked, released>>
seqVars  == <<gen, nextSeq, seqHw, waiters>>
hwVars   == <<ring, iqt, iwc, invDone, taskPending>>
vars     == <<procVars, listVars, seqVars, hwVars, tpc>>

GenSeq == Nat \X Seqs
Desc   == [kind : {"inv"}, id : InvIds, seq : {0}, intr : {FALSE}, gen : {0}]
          \cup [kind : {"wait"}, id : {0}, seq : Seqs, intr : BOOLEAN, gen : Nat]
InvDesc(i)         == [kind |-> "inv", id |-> i, seq |-> 0, intr |-> FALSE, gen |-> 0]
\* gen is a ghost: the hardware only sees seq (the status data) and the IF bit.
WaitDesc(s, f, g)  == [kind |-> "wait", id |-> 0, seq |-> s, intr |-> f, gen |-> g]

ProducerSteps == {"lock", "inv", "seq", "wrapSpin", "wrapGen", "link", "advance", "done"}
WaiterSteps   == {"lock", "inv", "seq", "wrapSpin", "wrapGen", "register", "advance",
                  "check", "sleep", "sleeping", "relock", "done"}
TaskSteps     == {"idle", "drain1", "iwc", "drain2", "waiters", "wake"}

TypeOK ==
    /\ lock \in Procs \cup {NoProc}
    /\ pc \in [Procs -> ProducerSteps \cup WaiterSteps]
    /\ \A p \in Producers : pc[p] \in ProducerSteps
    /\ \A w \in Waiters : pc[w] \in WaiterSteps
    /\ cnt \in [Producers -> 0 .. ItemsPerProducer]
    /\ elem \in [Producers -> Elems \cup {Null}]
    /\ wgs \in [Waiters -> GenSeq]
    /\ wbuf \in [Waiters -> BOOLEAN]
    /\ head \in Elems /\ tail \in Elems
    /\ next \in [Elems -> Elems \cup {Null}]
    /\ egs \in [Elems -> GenSeq]
    /\ eitem \in [Elems -> 0 .. NItems]
    /\ pool \subseteq Elems
    /\ nextItem \in 1 .. NItems + 1
    /\ linked \in 0 .. NItems
    /\ released \subseteq ItemIds
    /\ gen \in Nat /\ nextSeq \in 1 .. SeqWrap /\ seqHw \in Seqs
    /\ waiters \in 0 .. Cardinality(Waiters)
    /\ ring \in Seq(Desc) /\ Len(ring) <= RingSize
    /\ iqt \in 0 .. Len(ring)
    /\ iwc \in BOOLEAN /\ invDone \subseteq InvIds /\ taskPending \in BOOLEAN
    /\ tpc \in TaskSteps

-----------------------------------------------------------------------------
(* iommu_qi_seq_processed, QiSequencer.processed: unsigned unless Bug = "M4". *)
Processed(gs) == gs[1] < gen \/ (gs[1] = gen /\ SeqLeq(gs[2], seqHw))

(* The drain's stop test; bug M3 is off by one. *)
DrainProcessed(gs) ==
    IF Bug = "M3" THEN gs[1] < gen \/ (gs[1] = gen /\ gs[2] <= seqHw + 1)
                  ELSE Processed(gs)

Goto(x, s) == pc' = [pc EXCEPT ![x] = s]

Init ==
    /\ lock = NoProc
    /\ pc = [x \in Procs |-> "lock"]
    /\ cnt = [p \in Producers |-> 0]
    /\ elem = [p \in Producers |-> Null]
    /\ wgs = [w \in Waiters |-> <<0, 0>>]
    /\ wbuf = [w \in Waiters |-> FALSE]
    \* iommu_qi_common_init: head = tail = a dummy entry; ZombieHeadFlushList(dummy, ..)
    /\ head = 0 /\ tail = 0
    /\ next = [e \in Elems |-> Null]
    /\ egs = [e \in Elems |-> <<0, 0>>]
    /\ eitem = [e \in Elems |-> 0]
    /\ pool = Elems \ {0}
    /\ nextItem = 1 /\ linked = 0 /\ released = {}
    \* inv_waitd_gen = 0, inv_waitd_seq = 1; the softc is zeroed, so inv_waitd_seq_hw = 0.
    \* InitSeq > 1 starts as if InitSeq - 1 descriptors had completed (startAt(0, InitSeq)).
    /\ gen = 0 /\ nextSeq = InitSeq /\ seqHw = InitSeq - 1 /\ waiters = 0
    /\ ring = <<>> /\ iqt = 0 /\ iwc = FALSE /\ invDone = {} /\ taskPending = FALSE
    /\ tpc = "idle"

-----------------------------------------------------------------------------
(***************************************************************************)
(* Steps shared by producers and waiters, all under the unit lock.         *)
(***************************************************************************)

(* dmar_qi_ensure, InvalidationQueue.ensure, when the ring is full: advance
   IQT over what is already written so that the hardware can make room, then
   spin (the spin is this thread being disabled until the ring has room). *)
EnsureAdvance(x) ==
    /\ Len(ring) = RingSize
    /\ iqt < Len(ring)
    /\ iqt' = Len(ring)
    /\ UNCHANGED <<procVars, listVars, seqVars, ring, iwc, invDone, taskPending, tpc>>

(* The IOTLB invalidation descriptor of item (or waiter) id: dmar_qi_invalidate_emit
   -> dmar_qi_ensure + dmar_qi_emit; in Java the caller of QiSequencer.emitWaitSeq
   (the iommu-sim unit) after InvalidationQueue.ensure. *)
EmitInv(x, id, after) ==
    /\ pc[x] = "inv"
    /\ \/ /\ Len(ring) < RingSize
          /\ ring' = Append(ring, InvDesc(id))
          /\ Goto(x, after)
          /\ UNCHANGED <<lock, cnt, elem, wgs, wbuf, listVars, seqVars,
                         iqt, iwc, invDone, taskPending, tpc>>
       \/ EnsureAdvance(x)

(* Where emitWaitSeq stores the (gen, seq) it hands out: the entry's gseq for a
   producer (iommu_qi_invalidate_locked passes &entry->gseq), a local for a waiter. *)
SetGs(x, gs) ==
    IF x \in Producers
    THEN egs' = [egs EXCEPT ![elem[x]] = gs] /\ wgs' = wgs
    ELSE wgs' = [wgs EXCEPT ![x] = gs] /\ egs' = egs

(* iommu_qi_emit_wait_seq, QiSequencer.emitWaitSeq. At the wrap threshold: emit a
   wait descriptor for SeqWrap without IF and advance IQT (dmar_qi_emit_wait_descr,
   dmar_qi_advance_tail), then WrapSpin. Otherwise hand out (gen, nextSeq++) and
   emit its wait descriptor with IF and SW. *)
EmitWaitSeq(x, after) ==
    /\ pc[x] = "seq"
    /\ \/ /\ Len(ring) < RingSize
          /\ IF nextSeq = SeqWrap
             THEN /\ ring' = Append(ring, WaitDesc(SeqWrap, FALSE, gen))
                  /\ iqt' = Len(ring')
                  /\ Goto(x, "wrapSpin")
                  /\ UNCHANGED <<nextSeq, egs, wgs>>
             ELSE /\ ring' = Append(ring, WaitDesc(nextSeq, TRUE, gen))
                  /\ nextSeq' = IF Bug = "SeqStuck" THEN nextSeq ELSE nextSeq + 1
                  /\ SetGs(x, <<gen, nextSeq>>)
                  /\ Goto(x, after)
                  /\ UNCHANGED iqt
          /\ UNCHANGED <<lock, cnt, elem, wbuf, head, tail, next, eitem, pool, nextItem,
                         linked, released, gen, seqHw, waiters, iwc, invDone,
                         taskPending, tpc>>
       \/ EnsureAdvance(x)

(* iommu_qi_emit_wait_seq, QiSequencer.emitWaitSeq: the spin until the wrap
   descriptor is processed (skipped by bug M5), then
   - FreeBSD (ResetSeqHwOnWrap = FALSE): inv_waitd_gen++, inv_waitd_seq = 1,
     leaving inv_waitd_seq_hw at 0xffffffff;
   - QiSequencer (TRUE): seqHw = 0 here, gen++ in WrapGen. *)
WrapSpin(x) ==
    /\ pc[x] = "wrapSpin"
    /\ Bug = "M5" \/ Processed(<<gen, SeqWrap>>)
    /\ IF ResetSeqHwOnWrap
       THEN /\ seqHw' = 0
            /\ Goto(x, "wrapGen")
            /\ UNCHANGED <<gen, nextSeq>>
       ELSE /\ gen' = gen + 1
            /\ nextSeq' = 1
            /\ Goto(x, "seq")
            /\ UNCHANGED seqHw
    /\ UNCHANGED <<lock, cnt, elem, wgs, wbuf, listVars, waiters, hwVars, tpc>>

(* QiSequencer.emitWaitSeq: gen = gen + 1; nextSeq = 1, after the seqHw reset.
   FreeBSD has no such step: iommu_qi_emit_wait_seq bumps the generation in the
   step that ends the spin (WrapSpin). *)
WrapGen(x) ==
    /\ pc[x] = "wrapGen"
    /\ gen' = gen + 1
    /\ nextSeq' = 1
    /\ Goto(x, "seq")
    /\ UNCHANGED <<lock, cnt, elem, wgs, wbuf, listVars, seqHw, waiters, hwVars, tpc>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* Producers: iommu_domain_unload takes the unit lock and calls            *)
(* iommu_qi_invalidate_locked for the entry; in Java the unit (iommu-sim)  *)
(* holds the lock around QiSequencer.emitWaitSeq, ZombieHeadFlushList      *)
(* .enqueue and InvalidationQueue.advanceTail.                             *)
(* Order: inv, seq, link, advance. M2: inv, link, seq, advance.            *)
(* M9: inv, seq, advance, link.                                            *)
(***************************************************************************)
PAfterInv   == IF Bug = "M2" THEN "link" ELSE "seq"
PAfterSeq   == IF Bug = "M2" \/ Bug = "M9" THEN "advance" ELSE "link"
PAfterLink  == IF Bug = "M2" THEN "seq" ELSE IF Bug = "M9" THEN "unlock" ELSE "advance"
PAfterAdv   == IF Bug = "M9" THEN "link" ELSE "unlock"

(* The end of a producer's lock hold: IOMMU_UNLOCK; Java: the caller's unlock(). *)
PFinish(p) ==
    /\ lock' = NoProc
    /\ cnt' = [cnt EXCEPT ![p] = @ + 1]
    /\ elem' = [elem EXCEPT ![p] = Null]
    /\ Goto(p, IF cnt[p] + 1 < ItemsPerProducer THEN "lock" ELSE "done")

(* The map entry comes from the pool (FreeBSD: iommu_gas_alloc_entry at map time;
   Java: whatever pool the Reclaimer gives retired elements back to) and carries
   the next item; then the unit lock (IOMMU_LOCK in iommu_domain_unload; Java: the
   Lock the caller of ZombieHeadFlushList.enqueue holds). One step: taking both
   together keeps item ids in enqueue order; it only forbids a producer to hold an
   element while it waits for the lock. *)
PLock(p) ==
    /\ pc[p] = "lock"
    /\ cnt[p] < ItemsPerProducer
    /\ lock = NoProc
    /\ pool # {}
    /\ LET e == CHOOSE e \in pool : \A f \in pool : e <= f IN
       /\ pool' = pool \ {e}
       /\ elem' = [elem EXCEPT ![p] = e]
       /\ eitem' = [eitem EXCEPT ![e] = nextItem]
    /\ nextItem' = nextItem + 1
    /\ lock' = p
    /\ Goto(p, "inv")
    /\ UNCHANGED <<cnt, wgs, wbuf, head, tail, next, egs, linked, released,
                   seqVars, hwVars, tpc>>

(* ZombieHeadFlushList.enqueue, the list part of iommu_qi_invalidate_locked:
   entry->tlb_flush_next = NULL; atomic_store_rel_ptr(&tail->tlb_flush_next,
   entry); tlb_flush_tail = entry. The release store and the tail update are one
   step: only producers read tail, and they hold the lock. *)
PLink(p) ==
    /\ pc[p] = "link"
    /\ LET e == elem[p] IN
       IF Bug = "PushFront"
       THEN /\ next' = [next EXCEPT ![head] = e, ![e] = next[head]]
            /\ tail' = IF tail = head THEN e ELSE tail
       ELSE /\ next' = [next EXCEPT ![tail] = e, ![e] = Null]
            /\ tail' = e
    /\ linked' = linked + 1
    /\ IF PAfterLink = "unlock" THEN PFinish(p)
       ELSE Goto(p, PAfterLink) /\ UNCHANGED <<lock, cnt, elem>>
    /\ UNCHANGED <<wgs, wbuf, head, egs, eitem, pool, nextItem, released,
                   seqVars, hwVars, tpc>>

(* Seeded bug M2P: ZombieHeadFlushList.enqueue links the entry with a plain store
   instead of the release store. The Java memory model lets another thread see a
   plain store before a store that precedes it in program order (AArch64 does it in
   hardware; on x86 only the JIT could move it), so the consumer may see the link
   before the entry's (gen, seq). Modelled as the link becoming visible at "seq",
   before emitWaitSeq's store of entry->gseq; the program-order path (PLink at "link",
   via PAfterSeqOf) stays possible. tail = elem[p] only once p has linked it: the
   element came from the pool, and the tail is never in the pool (TailNotInPool). *)
PLinkEarly(p) ==
    /\ Bug = "M2P"
    /\ pc[p] = "seq"
    /\ tail # elem[p]
    /\ next' = [next EXCEPT ![tail] = elem[p], ![elem[p]] = Null]
    /\ tail' = elem[p]
    /\ linked' = linked + 1
    /\ UNCHANGED <<procVars, head, egs, eitem, pool, nextItem, released,
                   seqVars, hwVars, tpc>>

PAfterSeqOf(p) == IF Bug = "M2P" /\ tail = elem[p] THEN "advance" ELSE PAfterSeq

(* dmar_qi_advance_tail, InvalidationQueue.advanceTail: IQT = the software tail. *)
PAdvance(p) ==
    /\ pc[p] = "advance"
    /\ iqt' = Len(ring)
    /\ IF PAfterAdv = "unlock" THEN PFinish(p)
       ELSE Goto(p, PAfterAdv) /\ UNCHANGED <<lock, cnt, elem>>
    /\ UNCHANGED <<wgs, wbuf, listVars, seqVars, ring, iwc, invDone, taskPending, tpc>>

ProducerStep(p) ==
    \/ PLock(p)
    \/ EmitInv(p, eitem[elem[p]], PAfterInv)
    \/ EmitWaitSeq(p, PAfterSeqOf(p))
    \/ PLinkEarly(p)
    \/ WrapSpin(p)
    \/ WrapGen(p)
    \/ PLink(p)
    \/ PAdvance(p)

-----------------------------------------------------------------------------
(***************************************************************************)
(* Synchronous waiters: iommu_qi_invalidate_sync (and the quiesce of       *)
(* iommu_qi_common_fini), QiSequencer.quiesce: lock, emit, register,       *)
(* advance IQT, iommu_qi_wait_for_seq. M6 registers after the advance.     *)
(***************************************************************************)
WAfterSeq == IF Bug = "M6" THEN "advance" ELSE "register"
WAfterReg == IF Bug = "M6" THEN "check" ELSE "advance"
WAfterAdv == IF Bug = "M6" THEN "register" ELSE "check"

(* IOMMU_LOCK in iommu_qi_invalidate_sync; Java: the caller of QiSequencer.quiesce
   (or of emitWaitSeq, registerWaiter, waitForSeq) takes the unit Lock. *)
WLock(w) ==
    /\ pc[w] = "lock"
    /\ lock = NoProc
    /\ lock' = w
    /\ Goto(w, "inv")
    /\ UNCHANGED <<cnt, elem, wgs, wbuf, listVars, seqVars, hwVars, tpc>>

(* inv_seq_waiters++ in iommu_qi_invalidate_sync; QiSequencer.registerWaiter.
   With WaitersStoreBuffered the store enters this CPU's store buffer (x86-TSO)
   and becomes visible in WFlush. *)
WRegister(w) ==
    /\ pc[w] = "register"
    /\ IF Bug = "NoRegister"
       THEN UNCHANGED <<waiters, wbuf>>
       ELSE IF WaitersStoreBuffered
            THEN wbuf' = [wbuf EXCEPT ![w] = TRUE] /\ UNCHANGED waiters
            ELSE waiters' = waiters + 1 /\ UNCHANGED wbuf
    /\ Goto(w, WAfterReg)
    /\ UNCHANGED <<lock, cnt, elem, wgs, listVars, gen, nextSeq, seqHw, hwVars, tpc>>

(* The store buffer drains (x86-TSO: in program order, at any time). No code: the
   CPU does it. Java has no such step: waiters is volatile (WaitersStoreBuffered =
   FALSE is the Java model). *)
WFlush(w) ==
    /\ wbuf[w]
    /\ wbuf' = [wbuf EXCEPT ![w] = FALSE]
    /\ waiters' = waiters + 1
    /\ UNCHANGED <<lock, pc, cnt, elem, wgs, listVars, gen, nextSeq, seqHw, hwVars, tpc>>

(* dmar_qi_advance_tail, InvalidationQueue.advanceTail. The IQT write is a store
   too: under TSO it becomes visible only after the buffered increment, so the
   hardware cannot see the descriptor before the increment is visible. *)
WAdvance(w) ==
    /\ pc[w] = "advance"
    /\ ~wbuf[w]
    /\ iqt' = Len(ring)
    /\ Goto(w, WAfterAdv)
    /\ UNCHANGED <<lock, cnt, elem, wgs, wbuf, listVars, seqVars, ring, iwc, invDone,
                   taskPending, tpc>>

(* msleep(&inv_seq_waiters, &unit->lock, .., hz), Condition.awaitNanos: releases
   the lock and sleeps in one step (the unlock also drains the store buffer). *)
Sleep(w) ==
    /\ lock' = NoProc
    /\ waiters' = IF wbuf[w] THEN waiters + 1 ELSE waiters
    /\ wbuf' = [wbuf EXCEPT ![w] = FALSE]
    /\ Goto(w, "sleeping")

(* The test and the sleep are one step unless a seeded bug can see between them:
   M7's unlocked wakeup, or M6's increment still in the store buffer. Otherwise
   the waiter holds the lock across the gap and no lock-free step reads what it
   does there (its increment is already visible), so one step loses nothing. *)
SplitSleep == Bug \in {"M6", "M7"}

(* iommu_qi_wait_for_seq, QiSequencer.waitForSeq: the loop test under the lock.
   Processed: inv_seq_waiters--, DMAR_UNLOCK, return. (A still-buffered increment
   and this decrement leave the store buffer together at the unlock.) *)
WCheck(w) ==
    /\ pc[w] = "check"
    /\ IF Processed(wgs[w])
       THEN /\ waiters' = IF wbuf[w] THEN waiters ELSE waiters - 1
            /\ wbuf' = [wbuf EXCEPT ![w] = FALSE]
            /\ lock' = NoProc
            /\ Goto(w, "done")
       ELSE IF SplitSleep
            THEN Goto(w, "sleep") /\ UNCHANGED <<waiters, wbuf, lock>>
            ELSE Sleep(w)
    /\ UNCHANGED <<cnt, elem, wgs, listVars, gen, nextSeq, seqHw, hwVars, tpc>>

WSleep(w) ==
    /\ pc[w] = "sleep"
    /\ Sleep(w)
    /\ UNCHANGED <<cnt, elem, wgs, listVars, gen, nextSeq, seqHw, hwVars, tpc>>

(* The sleep's timeout: msleep's timo = hz in iommu_qi_wait_for_seq; Java:
   Condition.awaitNanos(sleepTimeoutNanos) in QiSequencer.waitForSeq. *)
WTimeout(w) ==
    /\ SleepTimeout
    /\ pc[w] = "sleeping"
    /\ Goto(w, "relock")
    /\ UNCHANGED <<lock, cnt, elem, wgs, wbuf, listVars, seqVars, hwVars, tpc>>

(* After a wakeup or a timeout, msleep (iommu_qi_wait_for_seq) re-takes the unit
   lock before it returns; so does Condition.awaitNanos (QiSequencer.waitForSeq). *)
WRelock(w) ==
    /\ pc[w] = "relock"
    /\ lock = NoProc
    /\ lock' = w
    /\ Goto(w, "check")
    /\ UNCHANGED <<cnt, elem, wgs, wbuf, listVars, seqVars, hwVars, tpc>>

WaiterStep(w) ==
    \/ WLock(w)
    \/ EmitInv(w, w, "seq")
    \/ EmitWaitSeq(w, WAfterSeq)
    \/ WrapSpin(w)
    \/ WrapGen(w)
    \/ WRegister(w)
    \/ WAdvance(w)
    \/ WCheck(w)
    \/ WSleep(w)
    \/ WRelock(w)

(* The waiter's thread, its CPU's store buffer and its sleep's callout. *)
WaiterGroup(w) == WaiterStep(w) \/ WFlush(w) \/ WTimeout(w)

-----------------------------------------------------------------------------
(***************************************************************************)
(* The hardware (the VT-d queued-invalidation engine; no FreeBSD function; *)
(* in Java FakeQiHardware.completeUpTo in the flushlist tests, the         *)
(* iommu-sim hardware engine): consumes the descriptor at IQH if IQT is    *)
(* past it. An IOTLB invalidation completes; a wait descriptor does its    *)
(* status write (SW, QiSequencer.statusWrite) and, with IF, sets ICS.IWC,  *)
(* raising the interrupt only if IWC was clear; the interrupt filter       *)
(* (dmar_qi_intr) enqueues the QI task.                                    *)
(***************************************************************************)
Hardware ==
    /\ iqt > 0
    /\ LET d == Head(ring) IN
       /\ ring' = Tail(ring)
       /\ iqt' = iqt - 1
       /\ IF d.kind = "inv"
          THEN /\ invDone' = invDone \cup {d.id}
               /\ UNCHANGED <<seqHw, iwc, taskPending>>
          ELSE /\ seqHw' = d.seq
               /\ IF d.intr /\ ~iwc
                  THEN iwc' = TRUE /\ taskPending' = TRUE
                  ELSE UNCHANGED <<iwc, taskPending>>
               /\ UNCHANGED invDone
    /\ UNCHANGED <<procVars, listVars, gen, nextSeq, waiters, tpc>>

-----------------------------------------------------------------------------
(***************************************************************************)
(* The QI task: dmar_qi_task, QiTask.run. Runs on one taskqueue thread;    *)
(* an interrupt while it runs enqueues it again.                           *)
(***************************************************************************)

(* The taskqueue thread starts dmar_qi_task (QiTask.run) once per enqueue;
   enqueues while it is pending coalesce. *)
TStart ==
    /\ tpc = "idle"
    /\ taskPending
    /\ taskPending' = FALSE
    /\ tpc' = "drain1"
    /\ UNCHANGED <<procVars, listVars, seqVars, ring, iqt, iwc, invDone>>

(* One iteration of iommu_qi_drain_tlb_flush, ZombieHeadFlushList.drain: acquire
   load of head->next; stop at NULL or at the first unprocessed entry; otherwise the
   entry becomes the zombie, the old zombie goes back to the pool
   (iommu_gas_free_entry, Reclaimer.retireElement; M1 retires the new one) and the
   entry's IOVA range is released (iommu_gas_free_space, Reclaimer.releaseItem). *)
TDrain(stage, after) ==
    /\ tpc = stage
    /\ LET z == head
           e == next[z]
       IN IF e # Null /\ DrainProcessed(egs[e])
          THEN LET r == IF Bug = "M1" THEN e ELSE z IN
               /\ head' = e
               /\ pool' = pool \cup {r}
               \* Java clears a retired element's link; FreeBSD leaves it (M1 too)
               /\ next' = IF Bug = "M1" THEN next ELSE [next EXCEPT ![z] = Null]
               /\ released' = released \cup {eitem[e]}
               /\ UNCHANGED tpc
          ELSE /\ tpc' = after
               /\ UNCHANGED <<head, pool, next, released>>
    /\ UNCHANGED <<procVars, tail, egs, eitem, nextItem, linked, seqVars, hwVars>>

(* dmar_qi_task: read DMAR_ICS_REG; if IWC is set, write 1 to clear it and drain
   again (QiTask.run: InvalidationCompletionStatus.iwc, clearIwc, second drain).
   M8 does not drain again. *)
TIwc ==
    /\ tpc = "iwc"
    /\ IF iwc
       THEN iwc' = FALSE /\ tpc' = IF Bug = "M8" THEN "waiters" ELSE "drain2"
       ELSE tpc' = "waiters" /\ UNCHANGED iwc
    /\ UNCHANGED <<procVars, listVars, seqVars, ring, iqt, invDone, taskPending>>

(* dmar_qi_task: if (inv_seq_waiters > 0), read without the lock;
   QiSequencer.wakeupWaiters: the volatile read of waiters. *)
TWaiters ==
    /\ tpc = "waiters"
    /\ tpc' = IF waiters > 0 THEN "wake" ELSE "idle"
    /\ UNCHANGED <<procVars, listVars, seqVars, hwVars>>

(* dmar_qi_task: DMAR_LOCK; wakeup(&inv_seq_waiters); DMAR_UNLOCK.
   QiSequencer.wakeupWaiters: lock(); signalAll(); unlock(). Holding the lock means
   no waiter is between its test and its sleep. M7 wakes without the lock. *)
TWake ==
    /\ tpc = "wake"
    /\ Bug = "M7" \/ lock = NoProc
    /\ pc' = [x \in Procs |-> IF x \in Waiters /\ pc[x] = "sleeping" THEN "relock" ELSE pc[x]]
    /\ tpc' = "idle"
    /\ UNCHANGED <<lock, cnt, elem, wgs, wbuf, listVars, seqVars, hwVars>>

TaskStep ==
    \/ TStart
    \/ TDrain("drain1", "iwc")
    \/ TIwc
    \/ TDrain("drain2", "waiters")
    \/ TWaiters
    \/ TWake

-----------------------------------------------------------------------------
(* Nothing is left to do but sleep: a final stuttering step, so that the end of
   the workload is not reported as a deadlock while a real deadlock still is. A
   waiter still asleep here is caught by EveryWaiterReturns, an entry still on
   the list by EveryItemReleased. *)
Quiescent ==
    /\ \A p \in Producers : pc[p] = "done"
    /\ \A w \in Waiters : pc[w] \in {"done", "sleeping"} /\ ~wbuf[w]
    /\ ring = <<>>
    /\ tpc = "idle" /\ ~taskPending

Finished == Quiescent /\ UNCHANGED vars

Next ==
    \/ \E p \in Producers : ProducerStep(p)
    \/ \E w \in Waiters : WaiterGroup(w)
    \/ Hardware
    \/ TaskStep
    \/ Finished

(* Every thread, the hardware and the task keep running (weak fairness). A
   waiter's fairness covers its CPU's store buffer, which drains, and its sleep's
   timeout, which fires: while the waiter is disabled otherwise, those are the
   only steps of the group that can be enabled. No fairness for Finished. *)
Fairness ==
    /\ \A p \in Producers : WF_vars(ProducerStep(p))
    /\ \A w \in Waiters : WF_vars(WaiterGroup(w))
    /\ WF_vars(Hardware)
    /\ WF_vars(TaskStep)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(***************************************************************************)
(* Safety                                                                  *)
(***************************************************************************)

(* A producer holding the lock may store into tail.next at any time: the element
   tail points to is never back in the pool. *)
TailNotInPool == tail \notin pool

(* The zombie is still on the list: never in the pool either. *)
ZombieNotInPool == head \notin pool

(* The use-after-unmap the design exists to prevent: an IOVA range goes back to
   the allocator only after the hardware completed the invalidation queued for it. *)
NoReleaseBeforeInvalidated == released \subseteq invDone

(* A synchronous waiter returns only after its invalidation completed. *)
NoWaiterReturnsEarly == \A w \in Waiters : pc[w] = "done" => w \in invDone

(* Items are numbered in enqueue order, so FIFO release means the released set is
   always a prefix 1..k. *)
ReleasedInEnqueueOrder == released = 1 .. Cardinality(released)

(* In the ring, wait descriptors of one generation carry strictly increasing
   sequence numbers, and generations do not go back. *)
RingSeqIncreasing ==
    \A i, j \in 1 .. Len(ring) :
        (i < j /\ ring[i].kind = "wait" /\ ring[j].kind = "wait")
            => \/ ring[i].gen < ring[j].gen
               \/ ring[i].gen = ring[j].gen /\ ring[i].seq < ring[j].seq

(***************************************************************************)
(* Liveness                                                                *)
(***************************************************************************)

(* Every enqueued item is eventually released. The workload is bounded and the
   producers are fair, so every item is enqueued, and this is the same as
   \A i \in ItemIds : (i <= linked) ~> (i \in released), at a fraction of the
   cost for TLC (one tableau branch instead of one per item). *)
EveryItemReleased == <>(released = ItemIds)

(* Every waiter eventually returns. Checked in a model without the timeout, it
   says: through a wakeup, not only through the timeout. Written with a set, not
   \A w \in Waiters: TLC 2.18 reports <>(\A w \in {} : P) as violated. *)
EveryWaiterReturns == <>({w \in Waiters : pc[w] # "done"} = {})
=============================================================================
