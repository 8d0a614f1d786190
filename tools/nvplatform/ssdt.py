"""The SSDT of a tools/mkplatform platform: the ASL of nvdimm.asl.in (the root
device and its helpers; %(name)s placeholders) filled in with the platform's constants, one
device per DIMM, compiled by iasl (acpica-tools).
"""
import os
import re
import subprocess
import sys

from nvplatform.layout import die, ROOT_DSM_UUID, INTEL_DSM_UUID, HYPERV_DSM_UUID, \
    MAX_XFER, H_ARS_STATE, H_ARS_TYPE, H_ARS_ADDR, H_NERRORS, H_NINJECTED, H_ARS_STARTS, \
    C_ROOT, C_DIMM, C_LSI, C_LSR, C_LSW, ERROR_REC, INJECT_REC, SMART_LEN

ASL_HEAD = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvdimm.asl.in")).read()

ASL_DIMM = r'''
            Device (NV%(idx)02X)
            {
                /* %(id)s: set %(set)d position %(pos)d */
                Name (_ADR, %(handle)#010x)
                Method (_DSM, 4, NotSerialized)
                {
                    Return (%(dsm_call)s)
                }
'''

ASL_DIMM_LS = r'''                Method (_LSI, 0, NotSerialized)
                {
                    Return (\_SB.NVDR.LSI ())
                }
                Method (_LSR, 2, NotSerialized)
                {
                    Return (\_SB.NVDR.LSR (%(label_addr)#010x, Arg0, Arg1))
                }
                Method (_LSW, 3, NotSerialized)
                {
                    Return (\_SB.NVDR.LSW (%(label_addr)#010x, Arg0, Arg1, Arg2))
                }
'''


def q8(v):
    return "Q8 (%#010x, %#010x)" % (v & 0xFFFFFFFF, v >> 32)


def build_asl(p):
    st = p["store"]
    base = st["base"]
    hndl, insp = [], []
    for s in p["sets"]:
        handles = ", ".join("%#x" % p["dimms"][i]["handle"] for i in s["dimms"])
        hndl.append(
            "                If (!QLT (Arg0, %s) && QLT (Arg0, %s))\n"
            "                {\n"
            "                    Local0 = QSUB (Arg0, %s)\n"
            "                    Local1 = (DW (Local0, 4) << 20) | (DW (Local0, Zero) >> 12)\n"
            "                    Local2 = Package (%d) { %s }\n"
            "                    Return (DerefOf (Local2 [Local1 %% %d]))\n"
            "                }" % (q8(s["base"]), q8(s["base"] + s["size"]), q8(s["base"]),
                                  s["ways"], handles, s["ways"]))
        insp.append(
            "                If (!QLT (Arg0, %s) && !QLT (%s, Local0))\n"
            "                {\n"
            "                    Return (One)\n"
            "                }" % (q8(s["base"]), q8(s["base"] + s["size"])))
    v = {
        "base": base, "max_errors": p["max_errors"], "clear_unit": p["clear_unit"],
        "errors": base + st["errors"], "injected": base + st["injected"],
        "h_ars_state": H_ARS_STATE, "h_ars_type": H_ARS_TYPE, "h_ars_addr": H_ARS_ADDR,
        "h_nerrors": H_NERRORS, "h_ninjected": H_NINJECTED, "h_ars_starts": H_ARS_STARTS,
        "c_root": C_ROOT, "c_dimm": C_DIMM, "c_lsi": C_LSI, "c_lsr": C_LSR, "c_lsw": C_LSW,
        "error_rec": ERROR_REC, "inject_rec": INJECT_REC, "smart_len": SMART_LEN,
        "root_uuid": ROOT_DSM_UUID, "intel_uuid": INTEL_DSM_UUID,
        "hyperv_uuid": HYPERV_DSM_UUID,
        "max_xfer": MAX_XFER, "label_size": p["label_size"],
        "hndl_body": "\n".join(hndl), "insp_body": "\n".join(insp),
    }
    out = [ASL_HEAD % v]
    for d in p["dimms"]:
        dv = {"idx": d["index"], "id": d["id"], "set": d["set"], "pos": d["position"],
              "handle": d["handle"], "label_addr": d["label_addr"],
              "smart_addr": d["smart_addr"]}
        if p["label_methods"] == "acpi":
            dv["dsm_call"] = "\\_SB.NVDR.HDSM (Arg0, Arg1, Arg2, Arg3, %#010x)" % d["smart_addr"]
        else:
            dv["dsm_call"] = "\\_SB.NVDR.DDSM (Arg0, Arg1, Arg2, Arg3, %#010x, %#010x)" % (
                d["label_addr"], d["smart_addr"])
        out.append(ASL_DIMM % dv)
        if p["label_methods"] in ("both", "acpi"):
            out.append(ASL_DIMM_LS % dv)
        out.append("            }\n")
    out.append("        }\n    }\n}\n")
    return "".join(out)


def compile_asl(dirname):
    asl = os.path.join(dirname, "ssdt.asl")
    try:
        r = subprocess.run(["iasl", "-p", os.path.join(dirname, "ssdt"), asl],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=120)
    except FileNotFoundError:
        die("iasl not found: install acpica-tools (tools/deps.sh)")
    if r.returncode != 0 or not os.path.exists(os.path.join(dirname, "ssdt.aml")):
        sys.stderr.write(r.stdout)
        die("iasl failed on %s" % asl)
    # Warnings are bugs in the generator: show them.
    for line in r.stdout.splitlines():
        if re.search(r"\b(Warning|Error)\b", line) and "0 Warnings" not in line:
            print("mkplatform: iasl: " + line, file=sys.stderr)
