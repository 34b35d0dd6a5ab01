package io.github.dmarflush.sim.gas;

import java.util.function.LongBinaryOperator;

/**
 * The IOVA space of one domain (FreeBSD's "guest address space", {@code sys/dev/iommu/iommu_gas.c}):
 * hands out page-aligned ranges under a tag's constraints, lowest address first, and takes
 * them back.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li>The allocated ranges ("map entries") are the nodes of an AVL tree ordered by start
 *       address, compared unsigned. Two placeholder entries bound the space: {@code [0,
 *       lowest)} (page 0 reserved when {@code lowest} is a page) and the empty
 *       {@code [end, end)}. So every free range is the gap between two consecutive
 *       entries.</li>
 *   <li>Each node is augmented, as FreeBSD augments its red-black tree with
 *       {@code free_down}, with the first start and last end in its subtree and the largest
 *       gap between consecutive entries inside it ({@code maxGap}, which counts the gaps
 *       between the node and its children). Rotations and every insert/remove recompute them
 *       bottom-up, so they are exact for every node at rest.</li>
 *   <li>Free-space search walks the tree in address order and skips any subtree whose
 *       {@code maxGap} is below the size, or that lies wholly outside the allowed region; the
 *       first gap that can hold an aligned, non-boundary-crossing range wins. Lowest address
 *       first means a freed range is reused soon, which is what makes a premature free
 *       visible to the DMA checker (the range is remapped while a stale IOTLB entry still
 *       translates it).</li>
 *   <li>Regions, as {@code iommu_gas_find_space}: first the lower region, up to and including
 *       {@code lowaddr}; then, if {@code highaddr} is below the end of the space, the upper
 *       region above {@code highaddr}. All address comparisons are unsigned.</li>
 * </ul>
 *
 * <h2>Departures from FreeBSD, on purpose</h2>
 * <ul>
 *   <li>{@code lowaddr} is inclusive (busdma's meaning, the highest address the device
 *       reaches); {@code iommu_gas_match_one} compares the range's exclusive end against it
 *       and so never hands out the last page below a 32-bit device's limit.</li>
 *   <li>No guard page between ranges ({@code iommu_gas_match_one} leaves one so that an
 *       overrun faults): the simulator's DMA checker finds overruns without it.</li>
 *   <li>With {@code sizeAligned}, a range is also aligned to its size rounded up to a power of
 *       two, at most {@value #MAX_NATURAL_ALIGN} bytes (Linux's IOVA allocator does the same):
 *       page-selective invalidations then need one descriptor per range, and 2 MiB buffers
 *       can be mapped with 2 MiB pages.</li>
 * </ul>
 *
 * <p>Not thread-safe: the caller holds the domain lock ({@code iodom}), as FreeBSD's
 * {@code iommu_gas_map} and {@code iommu_gas_free_space} do.
 */
public final class GasAllocator {

    /** Page size, bytes. */
    public static final long PAGE_SIZE = 4096;
    /** The largest natural alignment applied with {@code sizeAligned}: 2 MiB. */
    public static final long MAX_NATURAL_ALIGN = 2L << 20;

    /** A map entry: an allocated or reserved range, and the subtree's augmentation. */
    private static final class Node {
        final long start;
        final long end;
        final boolean fixed;
        Node left;
        Node right;
        int height = 1;
        long first;
        long last;
        long maxGap;

        Node(long start, long end, boolean fixed) {
            this.start = start;
            this.end = end;
            this.fixed = fixed;
            this.first = start;
            this.last = end;
        }
    }

    private final long lowest;
    private final long end;
    private final boolean sizeAligned;
    private Node root;
    private int allocatedCount;
    private long allocatedBytes;

    /**
     * A space whose ranges are aligned to pages only (FreeBSD's policy).
     *
     * @param lowest the lowest IOVA handed out, page aligned ({@code [0, lowest)} is reserved)
     * @param end one past the highest IOVA, page aligned (e.g. 2^48)
     */
    public GasAllocator(long lowest, long end) {
        this(lowest, end, false);
    }

    /**
     * @param lowest the lowest IOVA handed out, page aligned ({@code [0, lowest)} is reserved)
     * @param end one past the highest IOVA, page aligned (e.g. 2^48); at most 2^63
     * @param sizeAligned also align each range to its size rounded up to a power of two
     *     (at most 2 MiB)
     * @throws IllegalArgumentException if the bounds are misaligned or empty
     */
    public GasAllocator(long lowest, long end, boolean sizeAligned) {
        if ((lowest & (PAGE_SIZE - 1)) != 0 || (end & (PAGE_SIZE - 1)) != 0 || lowest < 0 || end <= lowest) {
            throw new IllegalArgumentException(String.format(
                    "IOVA space [0x%x, 0x%x) must be non-empty and page aligned", lowest, end));
        }
        this.lowest = lowest;
        this.end = end;
        this.sizeAligned = sizeAligned;
        root = insert(root, new Node(0, lowest, true));
        root = insert(root, new Node(end, end, true));
    }

    // ---- AVL with augmentation ----

    private static int height(Node n) {
        return n == null ? 0 : n.height;
    }

    private static void update(Node n) {
        n.height = 1 + Math.max(height(n.left), height(n.right));
        long gap = 0;
        n.first = n.start;
        n.last = n.end;
        if (n.left != null) {
            n.first = n.left.first;
            gap = Math.max(n.left.maxGap, n.start - n.left.last);
        }
        if (n.right != null) {
            n.last = n.right.last;
            gap = Math.max(gap, Math.max(n.right.maxGap, n.right.first - n.end));
        }
        n.maxGap = gap;
    }

    private static Node rotateRight(Node n) {
        Node l = n.left;
        n.left = l.right;
        l.right = n;
        update(n);
        update(l);
        return l;
    }

    private static Node rotateLeft(Node n) {
        Node r = n.right;
        n.right = r.left;
        r.left = n;
        update(n);
        update(r);
        return r;
    }

    private static Node balance(Node n) {
        update(n);
        int bf = height(n.left) - height(n.right);
        if (bf > 1) {
            if (height(n.left.left) < height(n.left.right)) {
                n.left = rotateLeft(n.left);
            }
            return rotateRight(n);
        }
        if (bf < -1) {
            if (height(n.right.right) < height(n.right.left)) {
                n.right = rotateRight(n.right);
            }
            return rotateLeft(n);
        }
        return n;
    }

    private static int compare(long aStart, long aEnd, Node b) {
        int c = Long.compareUnsigned(aStart, b.start);
        return c != 0 ? c : Long.compareUnsigned(aEnd, b.end);
    }

    private static Node insert(Node n, Node x) {
        if (n == null) {
            return x;
        }
        int c = compare(x.start, x.end, n);
        if (c < 0) {
            n.left = insert(n.left, x);
        } else if (c > 0) {
            n.right = insert(n.right, x);
        } else {
            throw new IllegalStateException(String.format("duplicate map entry [0x%x, 0x%x)", x.start, x.end));
        }
        return balance(n);
    }

    private static Node removeMin(Node n, Node[] min) {
        if (n.left == null) {
            min[0] = n;
            return n.right;
        }
        n.left = removeMin(n.left, min);
        return balance(n);
    }

    private static Node remove(Node n, Node x) {
        if (n == null) {
            throw new IllegalStateException("entry not in tree");
        }
        if (n == x) {
            if (n.left == null) {
                return n.right;
            }
            if (n.right == null) {
                return n.left;
            }
            Node[] min = new Node[1];
            Node r = removeMin(n.right, min);
            Node s = min[0];
            s.left = n.left;
            s.right = r;
            n.left = null;
            n.right = null;
            return balance(s);
        }
        if (compare(x.start, x.end, n) < 0) {
            n.left = remove(n.left, x);
        } else {
            n.right = remove(n.right, x);
        }
        return balance(n);
    }

    /** The entry with this start, or null. */
    private Node find(long start) {
        Node n = root;
        while (n != null) {
            int c = Long.compareUnsigned(start, n.start);
            if (c == 0) {
                // Placeholders of length 0 can share a start only at 0 (lowest == 0): prefer
                // the non-empty entry, which is the right child in (start, end) order.
                if (n.end == n.start && n.right != null && n.right.first == start) {
                    n = n.right;
                    continue;
                }
                return n;
            }
            n = c < 0 ? n.left : n.right;
        }
        return null;
    }

    // ---- free-space search ----

    /** The request being placed; fields so the recursive search does not allocate. */
    private long reqSize;
    private long reqAlign;
    private long reqBoundary;
    private long regionLo;
    private long regionMax; // inclusive

    /**
     * Places the request in the gap {@code [gs, ge)}, or returns -1.
     */
    private long place(long gs, long ge) {
        long s = Math.max(gs, regionLo); // both < 2^63
        s = roundUp(s, reqAlign);
        if (reqBoundary != 0 && crosses(s, reqSize, reqBoundary)) {
            long nextBoundary = (s + reqBoundary) & -reqBoundary;
            s = roundUp(nextBoundary, reqAlign);
        }
        long last = s + reqSize - 1;
        if (s < gs || last >= ge || Long.compareUnsigned(last, regionMax) > 0) {
            return -1;
        }
        return s;
    }

    private static long roundUp(long v, long align) {
        return (v + align - 1) & -align;
    }

    private static boolean crosses(long start, long size, long boundary) {
        return (start & -boundary) != ((start + size - 1) & -boundary);
    }

    private long search(Node n) {
        if (n == null || Long.compareUnsigned(n.maxGap, reqSize) < 0) {
            return -1;
        }
        // Every gap in this subtree lies within [n.first, n.last).
        if (Long.compareUnsigned(n.first, regionMax) > 0 || Long.compareUnsigned(n.last, regionLo) <= 0) {
            return -1;
        }
        long r = search(n.left);
        if (r >= 0) {
            return r;
        }
        if (n.left != null && (r = place(n.left.last, n.start)) >= 0) {
            return r;
        }
        if (n.right != null && (r = place(n.end, n.right.first)) >= 0) {
            return r;
        }
        return search(n.right);
    }

    /**
     * The alignment a request of {@code size} gets under {@code c}.
     *
     * @param size bytes
     * @param c the constraints
     * @return the alignment, a power of two
     */
    public long alignmentFor(long size, GasConstraints c) {
        long align = c.alignment();
        if (sizeAligned) {
            long natural = Long.highestOneBit(size);
            if (natural < size) {
                natural <<= 1;
            }
            align = Math.max(align, Math.min(natural, MAX_NATURAL_ALIGN));
        }
        return align;
    }

    /**
     * Allocates {@code size} bytes at the lowest address the space allows.
     *
     * @param size bytes, a positive multiple of 4 KiB
     * @return the start IOVA, or -1 if no free range is large enough
     * @throws IllegalArgumentException if {@code size} is not a positive multiple of 4 KiB
     */
    public long allocate(long size) {
        return allocate(size, GasConstraints.NONE);
    }

    /**
     * Allocates {@code size} bytes at the lowest address that satisfies {@code c}: first in the
     * lower region (up to {@code lowaddr}), then above {@code highaddr}. As
     * {@code iommu_gas_find_space} and {@code iommu_gas_match_insert}.
     *
     * @param size bytes, a positive multiple of 4 KiB
     * @param c the tag's constraints
     * @return the start IOVA, or -1 if nothing fits
     * @throws IllegalArgumentException if {@code size} is not a positive multiple of 4 KiB, or
     *     is larger than the boundary
     */
    public long allocate(long size, GasConstraints c) {
        if (size <= 0 || (size & (PAGE_SIZE - 1)) != 0) {
            throw new IllegalArgumentException("allocation size must be a positive multiple of 4 KiB, got " + size);
        }
        if (c.boundary() != 0 && size > c.boundary()) {
            throw new IllegalArgumentException(String.format(
                    "a range of 0x%x bytes cannot stay within a 0x%x boundary", size, c.boundary()));
        }
        reqSize = size;
        reqAlign = alignmentFor(size, c);
        reqBoundary = c.boundary();
        long start = -1;
        // Lower region: [lowest, min(lowaddr, end - 1)].
        regionLo = lowest;
        regionMax = Long.compareUnsigned(c.lowaddr(), end - 1) < 0 ? c.lowaddr() : end - 1;
        if (Long.compareUnsigned(regionMax, regionLo) >= 0) {
            start = search(root);
        }
        // Upper region: (highaddr, end).
        if (start < 0 && Long.compareUnsigned(c.highaddr(), end - 1) < 0) {
            regionLo = Math.max(lowest, c.highaddr() + 1);
            regionMax = end - 1;
            start = search(root);
        }
        if (start < 0) {
            return -1;
        }
        root = insert(root, new Node(start, start + size, false));
        allocatedCount++;
        allocatedBytes += size;
        return start;
    }

    /**
     * Reserves a fixed range, as {@code iommu_gas_reserve_region} (or {@code iommu_gas_map_region}
     * for a range the caller chose, such as one replayed from a trace).
     *
     * @param start first IOVA, page aligned
     * @param size bytes, a positive multiple of 4 KiB
     * @param fixed true for a permanent reservation that {@link #free} refuses; false for a
     *     range that is freed like an allocated one
     * @return true if reserved; false if any part of it is already taken or outside the space
     */
    public boolean reserve(long start, long size, boolean fixed) {
        if (size <= 0 || ((start | size) & (PAGE_SIZE - 1)) != 0) {
            throw new IllegalArgumentException(String.format(
                    "reserved range 0x%x + 0x%x must be page aligned and non-empty", start, size));
        }
        long e = start + size;
        if (start < lowest || e > end || e < start) {
            return false;
        }
        // The entry just below start+size (by start) must end at or before start, and the one
        // at or above must begin at or after the end.
        Node below = null;
        Node above = null;
        Node n = root;
        while (n != null) {
            if (Long.compareUnsigned(n.start, e) < 0) {
                below = n;
                n = n.right;
            } else {
                above = n;
                n = n.left;
            }
        }
        if (below != null && Long.compareUnsigned(below.end, start) > 0) {
            return false;
        }
        if (above == null) {
            return false;
        }
        root = insert(root, new Node(start, e, fixed));
        allocatedCount++;
        allocatedBytes += size;
        return true;
    }

    /**
     * Returns a range to the free space. As {@code iommu_gas_free_space}.
     *
     * @param start the start IOVA returned by {@link #allocate}
     * @param size its size
     * @throws IllegalStateException if the range is not allocated as given (a double free or
     *     a corrupted entry) or is a permanent reservation
     */
    public void free(long start, long size) {
        Node n = find(start);
        if (n == null || n.end != start + size || n.fixed || n.start == n.end) {
            throw new IllegalStateException(String.format(
                    "free of [0x%x, 0x%x), which is not an allocated range (double free?)", start, start + size));
        }
        root = remove(root, n);
        allocatedCount--;
        allocatedBytes -= size;
    }

    /** @return the number of allocated and reserved ranges (placeholders excluded) */
    public int allocatedCount() {
        return allocatedCount;
    }

    /** @return bytes allocated or reserved */
    public long allocatedBytes() {
        return allocatedBytes;
    }

    /** @return the number of free ranges (fragmentation) */
    public int freeExtents() {
        int[] n = new int[1];
        forEachGap((gs, ge) -> {
            n[0]++;
            return 0;
        });
        return n[0];
    }

    /** @return the largest free range, bytes */
    public long largestFree() {
        return root.maxGap;
    }

    /** @return the tree's height (an AVL tree of n entries stays below 1.45 log2(n + 2)) */
    public int height() {
        return height(root);
    }

    private void forEachGap(LongBinaryOperator gap) {
        long[] prevEnd = {-1};
        walk(root, prevEnd, gap);
    }

    private static void walk(Node n, long[] prevEnd, LongBinaryOperator gap) {
        if (n == null) {
            return;
        }
        walk(n.left, prevEnd, gap);
        if (prevEnd[0] >= 0 && n.start > prevEnd[0]) {
            gap.applyAsLong(prevEnd[0], n.start);
        }
        prevEnd[0] = n.end;
        walk(n.right, prevEnd, gap);
    }

    /**
     * Checks every node's order, balance and augmentation against a recomputation. For tests.
     *
     * @throws IllegalStateException describing the first broken invariant
     */
    public void checkInvariants() {
        check(root);
    }

    private static void check(Node n) {
        if (n == null) {
            return;
        }
        check(n.left);
        check(n.right);
        if (n.left != null && n.left.last > n.start) {
            throw new IllegalStateException("left subtree overlaps node at 0x" + Long.toHexString(n.start));
        }
        if (n.right != null && n.right.first < n.end) {
            throw new IllegalStateException("right subtree overlaps node at 0x" + Long.toHexString(n.start));
        }
        if (Math.abs(height(n.left) - height(n.right)) > 1) {
            throw new IllegalStateException("unbalanced at 0x" + Long.toHexString(n.start));
        }
        long h = n.height;
        long first = n.first;
        long last = n.last;
        long gap = n.maxGap;
        update(n);
        if (h != n.height || first != n.first || last != n.last || gap != n.maxGap) {
            throw new IllegalStateException("stale augmentation at 0x" + Long.toHexString(n.start));
        }
    }

    /** @return the lowest IOVA */
    public long lowest() {
        return lowest;
    }

    /** @return one past the highest IOVA */
    public long end() {
        return end;
    }
}
