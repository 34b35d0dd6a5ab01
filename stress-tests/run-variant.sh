#!/bin/sh
# Runs jcstress tests against one seeded bug (seeded-bugs, Variant.java) and says whether the
# tests caught it. A variant is caught when jcstress fails (exit status 1).
#
#   stress-tests/run-variant.sh VARIANT TEST_REGEX [more jcstress options]
#   stress-tests/run-variant.sh M1 RecyclingRace_ZombieHead
#   stress-tests/run-variant.sh M7 Wakeup_ZombieHead -jvmArgsPrepend -Ddmarflush.sleepTimeoutMs=100
#
# Defaults: -m quick -sc false (8 JVM configurations per test). Reports go to
# stress-tests/target/variants/VARIANT-TESTS/. Build the jar first: mvn -B -pl stress-tests -am package -DskipTests
set -eu
[ $# -ge 2 ] || { sed -n '2,9p' "$0"; exit 2; }
variant=$1; tests=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
out="$here/target/variants/$variant-$(printf %s "$tests" | tr -c 'A-Za-z0-9_' _)"
mkdir -p "$out"
# Fold any -jvmArgsPrepend given here into the one that selects the variant: jcstress
# keeps only one.
jvm="-Ddmarflush.variant=$variant"
n=$#
i=0
while [ $i -lt $n ]; do
    a=$1; shift; i=$((i + 1))
    if [ "$a" = "-jvmArgsPrepend" ] && [ $i -lt $n ]; then
        jvm="$jvm $1"; shift; i=$((i + 1))
    else
        set -- "$@" "$a"
    fi
done
cd "$out"
set +e
java -jar "$here/target/jcstress.jar" -m quick -sc false -t "$tests" -r "$out/report" \
    -jvmArgsPrepend "$jvm" "$@" > "$out/jcstress.log" 2>&1
rc=$?
set -e
sed -n '/Failed tests:/,/Error tests:/p' "$out/jcstress.log" | grep -v '^$' | head -40
grep -E '\(Results:' "$out/jcstress.log" | tail -1
if [ $rc -eq 1 ]; then
    echo "variant $variant: CAUGHT by $tests (jcstress exit status 1)"
elif [ $rc -eq 0 ]; then
    echo "variant $variant: NOT caught by $tests (jcstress passed)"
else
    echo "variant $variant: jcstress exit status $rc, see $out/jcstress.log"
fi
