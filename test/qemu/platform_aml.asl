/*
 * Host test of the firmware tools/mkplatform writes (test/qemu/cases/
 * platform.sh, case platform_tool): acpiexec (acpica-tools) loads a
 * revision-1 DSDT (32-bit AML integers, as on QEMU's pc machine), the
 * SSDT of `tools/mkplatform DIR --sets 4` and this table, then runs \MAIN,
 * which calls the root and DIMM methods and checks every answer itself:
 * one "PASS n" line at the end, a "FAIL name" line (and both values) for
 * each wrong answer. acpiexec backs SystemMemory regions with its own
 * zeroed memory, not the store file: this checks the AML's logic (ARS over
 * the error list, clear with trim and split, injection, label transfers,
 * status codes), not the layout of ram.img.
 *
 * The platform: one 4-way set at 0x100000000 (1 GiB, 4 KiB lines over
 * handles 0x1, 0x11, 0x21, 0x101), 128 KiB label areas, 128-record lists,
 * clear unit 256.
 */
DefinitionBlock ("", "SSDT", 1, "PMEMK ", "AMLTEST", 1)
{
    External (\_SB.NVDR._DSM, MethodObj)
    External (\_SB.NVDR.NV00._DSM, MethodObj)
    External (\_SB.NVDR.NV03._DSM, MethodObj)
    External (\_SB.NVDR.NV00._LSI, MethodObj)
    External (\_SB.NVDR.NV00._LSR, MethodObj)
    External (\_SB.NVDR.NV00._LSW, MethodObj)

    Name (NPAS, Zero)
    Name (NBAD, Zero)

    Method (CHK, 3, NotSerialized)
    {
        If (Arg1 == Arg2)
        {
            NPAS++
        }
        Else
        {
            NBAD++
            Debug = Concatenate ("FAIL ", Arg0)
            Debug = Arg1
            Debug = Arg2
        }
    }

    /* Root _DSM function Arg0 with input buffer Arg1. */
    Method (ROOT, 2, NotSerialized)
    {
        Local0 = Package (1) { Zero }
        Local0 [Zero] = Arg1
        Return (\_SB.NVDR._DSM (ToUUID ("2f10e7a4-9e91-11e4-89d3-123b93f75cba"), One, Arg0, Local0))
    }

    Method (DIMM, 2, NotSerialized)
    {
        Local0 = Package (1) { Zero }
        Local0 [Zero] = Arg1
        Return (\_SB.NVDR.NV00._DSM (ToUUID ("4309ac30-0d11-11e4-9191-0800200c9a66"), One, Arg0, Local0))
    }

    Method (MAIN, 0, Serialized)
    {
        Name (NONE, Buffer (Zero) {})
        /* {address, length} of the whole set, of one 4 KiB page, outside. */
        Name (WHOL, Buffer (16) { 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0 })
        Name (OUTS, Buffer (16) { 0, 0, 0, 0, 2, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0 })

        CHK ("root function 0", ROOT (Zero, NONE), Buffer (2) { 0x9F, 0x03 })
        CHK ("root unknown uuid", \_SB.NVDR._DSM (ToUUID ("4309ac30-0d11-11e4-9191-0800200c9a66"),
             One, Zero, Package (1) { NONE }), Buffer (One) { 0 })
        CHK ("root function 5: not supported", ROOT (5, NONE), Buffer (4) { 1, 0, 0, 0 })
        CHK ("status before any start: no ARS performed", ROOT (3, NONE),
             Concatenate (Buffer (8) { 0, 0, 2, 0, 44, 0, 0, 0 }, Buffer (40) {}))
        /* max ARS status output 48 + 128 x 24 = 3120, clear unit 256 */
        CHK ("ARS capabilities", ROOT (One, WHOL),
             Buffer (16) { 0, 0, 2, 0, 0x30, 0x0C, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 })
        CHK ("ARS capabilities outside the set", ROOT (One, OUTS),
             Buffer (16) { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 })
        CHK ("ARS capabilities without input", ROOT (One, NONE),
             Buffer (16) { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 })

        /* Inject 0x100002000 + 4 KiB (line 2: handle 0x21), 0x100010000 + 512 (line 16: 0x1). */
        CHK ("inject page", ROOT (7, Buffer (17) { 0, 0x20, 0, 0, 1, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0 }),
             Buffer (4) { 0, 0, 0, 0 })
        CHK ("inject sector", ROOT (7, Buffer (17) { 0, 0, 1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0 }),
             Buffer (4) { 0, 0, 0, 0 })
        CHK ("inject outside", ROOT (7, Buffer (17) { 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0 }),
             Buffer (4) { 2, 0, 0, 0 })
        CHK ("inject past the end", ROOT (7, Buffer (17) { 0, 0, 0, 0x40, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0 }),
             Buffer (4) { 2, 0, 0, 0 })
        CHK ("inject status", ROOT (9, NONE), Buffer (40) {
             0, 0, 0, 0, 2, 0, 0, 0,
             0, 0x20, 0, 0, 1, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0,
             0, 0, 1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0 })

        CHK ("volatile scrub refused", ROOT (2, Concatenate (WHOL, Buffer (8) { 1, 0, 0, 0, 0, 0, 0, 0 })),
             Buffer (8) { 2, 0, 0, 0, 0, 0, 0, 0 })
        CHK ("start ARS", ROOT (2, Concatenate (WHOL, Buffer (8) { 2, 0, 0, 0, 0, 0, 0, 0 })),
             Buffer (8) { 0, 0, 0, 0, 0, 0, 0, 0 })
        /* Output length 44 + 2 x 24 = 92; type 2; 2 records. */
        CHK ("ARS status", ROOT (3, NONE), Buffer (96) {
             0, 0, 0, 0, 92, 0, 0, 0,
             0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0,
             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
             2, 0, 0, 0, 2, 0, 0, 0,
             0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 1, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0,
             0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0 })

        /* Clear 512 bytes inside the page: split in two. Misaligned: refused. */
        CHK ("clear inside a record", ROOT (4, Buffer (16) { 0, 0x24, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0 }),
             Buffer (16) { 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0 })
        CHK ("clear misaligned", ROOT (4, Buffer (16) { 0x10, 0x24, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0 }),
             Buffer (16) { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 })
        CHK ("clear the sector's head", ROOT (4, Buffer (16) { 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 }),
             Buffer (16) { 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 })
        /* [0x100002000, +0x400), [0x100002600, +0xa00), [0x100010100, +0x100) */
        CHK ("ARS status after the clears", ROOT (3, NONE), Buffer (120) {
             0, 0, 0, 0, 116, 0, 0, 0,
             0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0,
             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
             2, 0, 0, 0, 3, 0, 0, 0,
             0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 1, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0,
             0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0x26, 0, 0, 1, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0, 0,
             0x01, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 })
        /* A scrub of the first 64 KiB only: the records in it. */
        CHK ("start ARS on 64 KiB", ROOT (2, Buffer (24) { 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
             2, 0, 0, 0, 0, 0, 0, 0 }), Buffer (8) { 0, 0, 0, 0, 0, 0, 0, 0 })
        CHK ("ARS status of 64 KiB", ROOT (3, NONE), Buffer (96) {
             0, 0, 0, 0, 92, 0, 0, 0,
             0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
             2, 0, 0, 0, 2, 0, 0, 0,
             0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 1, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0,
             0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0x26, 0, 0, 1, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0, 0 })
        /* Uninject everything: both lists empty. */
        CHK ("inject clear", ROOT (8, WHOL), Buffer (4) { 0, 0, 0, 0 })
        CHK ("inject status when empty", ROOT (9, NONE), Buffer (8) { 0, 0, 0, 0, 0, 0, 0, 0 })
        CHK ("ARS status when empty", ROOT (3, NONE),
             Concatenate (Buffer (8) { 0, 0, 0, 0, 44, 0, 0, 0 },
                          Buffer (40) { 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        2, 0, 0, 0, 0, 0, 0, 0 }))

        /* The Intel DIMM _DSM: functions, SMART, labels. */
        CHK ("DIMM function 0", DIMM (Zero, NONE), Buffer (One) { 0x73 })
        CHK ("DIMM Hyper-V uuid", \_SB.NVDR.NV00._DSM (ToUUID ("5746c5f2-a9a2-4264-ad0e-e4ddc9e09e80"),
             One, Zero, Package (1) { NONE }), Buffer (One) { 0 })
        Local0 = DIMM (One, NONE)
        CHK ("SMART length", SizeOf (Local0), 132)
        CHK ("label size", DIMM (4, NONE), Buffer (12) { 0, 0, 0, 0, 0, 0, 2, 0, 0, 0x10, 0, 0 })
        CHK ("label write", DIMM (6, Buffer (16) { 0, 1, 0, 0, 8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 }),
             Buffer (4) { 0, 0, 0, 0 })
        CHK ("label read", DIMM (5, Buffer (8) { 0xFC, 0, 0, 0, 16, 0, 0, 0 }),
             Buffer (20) { 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0 })
        CHK ("label read past the end", DIMM (5, Buffer (8) { 0, 0xF0, 1, 0, 0, 0x20, 0, 0 }),
             Buffer (4) { 3, 0, 0, 0 })
        CHK ("label read over 4 KiB", DIMM (5, Buffer (8) { 0, 0, 0, 0, 1, 0x10, 0, 0 }),
             Buffer (4) { 3, 0, 0, 0 })
        CHK ("label write short input", DIMM (6, Buffer (12) { 0, 1, 0, 0, 8, 0, 0, 0, 1, 2, 3, 4 }),
             Buffer (4) { 3, 0, 0, 0 })
        Local0 = DIMM (5, Buffer (8) { 0, 0xF0, 1, 0, 0, 0x10, 0, 0 })
        CHK ("last 4 KiB of the area", SizeOf (Local0), 4100)
        /* Another DIMM's area is its own. */
        CHK ("NV03 label read", \_SB.NVDR.NV03._DSM (ToUUID ("4309ac30-0d11-11e4-9191-0800200c9a66"), One, 5,
             Package (1) { Buffer (8) { 0, 1, 0, 0, 8, 0, 0, 0 } }), Buffer (12) {})

        /* _LSI, _LSW then _LSR on the same area. */
        Local0 = \_SB.NVDR.NV00._LSI ()
        CHK ("_LSI status", DerefOf (Local0 [Zero]), Zero)
        CHK ("_LSI size", DerefOf (Local0 [One]), 0x20000)
        CHK ("_LSI max transfer", DerefOf (Local0 [2]), 0x1000)
        CHK ("_LSW", \_SB.NVDR.NV00._LSW (0x104, 4, Buffer (4) { 0xAA, 0xBB, 0xCC, 0xDD }), Zero)
        CHK ("_LSW past the end", \_SB.NVDR.NV00._LSW (0x1FFFF, 4, Buffer (4) {}), One)
        Local0 = \_SB.NVDR.NV00._LSR (0x100, 12)
        CHK ("_LSR status", DerefOf (Local0 [Zero]), Zero)
        CHK ("_LSR data", DerefOf (Local0 [One]),
             Buffer (12) { 1, 2, 3, 4, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 0 })
        Local0 = \_SB.NVDR.NV00._LSR (0x20000, One)
        CHK ("_LSR past the end", DerefOf (Local0 [Zero]), One)

        Debug = Concatenate ("PASS ", ToDecimalString (NPAS))
        If (NBAD)
        {
            Debug = Concatenate ("FAILED ", ToDecimalString (NBAD))
        }
    }
}
