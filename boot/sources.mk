kernel-y +=
