"""tools/mkplatform's modules: layout, NFIT, SSDT (nvdimm.asl), firmware store."""
