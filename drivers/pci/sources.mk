# drivers/pci: PCI enumeration, BARs, capabilities, lspci (portable: kernel
# and host tests; configuration space through arch_pci_cfg_*).
portable-y += drivers/pci/pci.c drivers/pci/pci_cmds.c drivers/pci/pci_intx.c
