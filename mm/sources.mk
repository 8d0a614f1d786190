portable-y +=
