# drivers/net: the netdev registry and the NIC drivers (virtio-net, e1000).
# Portable C (MMIO through pointers from pci_map_bar, rings in RAM from the
# page allocator); compiled for the host too, but tested under QEMU.
portable-y += drivers/net/netdev.c drivers/net/netdev_csum.c drivers/net/virtio_net.c drivers/net/e1000.c
