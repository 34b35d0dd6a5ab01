package io.github.dmarflush.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.dmarflush.sim.hw.RegisterTiming;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RegisterTimingConverterTest {

    private final RegisterTimingConverter c = new RegisterTimingConverter();

    @Test
    void parsesBothKeysOneKeyOrOneNumber() {
        assertEquals(new RegisterTiming(500, 50), c.convert("read=500,write=50"));
        assertEquals(new RegisterTiming(RegisterTiming.DEFAULT.readNanos(), 7), c.convert("write=7"));
        assertEquals(RegisterTiming.NONE, c.convert("0"));
        assertEquals(new RegisterTiming(20, 20), c.convert("20"));
        assertThrows(CommandLine.TypeConversionException.class, () -> c.convert("read=-1"));
        assertThrows(CommandLine.TypeConversionException.class, () -> c.convert("read"));
    }
}
