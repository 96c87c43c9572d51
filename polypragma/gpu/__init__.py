"""GPU mapping: host/kernel split, tiling, block and thread mapping, and device data."""
