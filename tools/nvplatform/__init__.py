"""tools/mkplatform's modules: layout, NFIT, SSDT (nvdimm.asl.in), firmware store."""
