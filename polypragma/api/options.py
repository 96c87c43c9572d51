"""The options of ``polypragma.compile`` that shape a library, all part of its cache key."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuildOptions:
    """The options of ``polypragma.compile`` that shape the library (all part of the cache key)."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    openmp: bool | None = None  # None: when the C compiler has it
    tile_size: tuple[int, ...] | None = None
    block_size: tuple[int, ...] | None = None
    grid_size: tuple[int, ...] | None = None
    sizes: str | None = None
    reschedule: bool = True
    fusion: str = "auto"
    fp_contract: bool = True
    shared_memory: bool = True
    private_memory: bool = True
    constant_memory: bool = True
    vector_copies: bool | None = None  # None: the compiler chooses, kernel by kernel
    async_copies: bool = False
    double_buffer: bool = False
    unroll_copies: bool = True
    strict: bool = False
    cflags: tuple[str, ...] = ("-O2",)
    cuda_architectures: tuple[str, ...] | None = None

    def driver_options(self, output_dir: str, backend: str, openmp: bool, device_entries: bool = False):
        """The compiler's options (imported here: a module loaded from the cache never needs them)."""
        from polypragma.driver import Options
        from polypragma.frontend.preprocess import PreprocessOptions
        from polypragma.gpu.memory import MemoryOptions
        from polypragma.gpu.sizes import SizeOptions
        from polypragma.schedule import ScheduleOptions

        return Options(
            output_dir=output_dir, target=backend, openmp=openmp, strict=self.strict,
            preprocess=PreprocessOptions(self.include_dirs, self.defines, self.undefines),
            schedule=ScheduleOptions(reschedule=self.reschedule, fusion=self.fusion),
            sizes=SizeOptions(self.tile_size, self.block_size, self.grid_size, self.sizes),
            memory=MemoryOptions(shared=self.shared_memory, private=self.private_memory,
                                 constant=self.constant_memory, vector_copies=self.vector_copies,
                                 async_copies=self.async_copies, double_buffer=self.double_buffer,
                                 unroll_copies=self.unroll_copies),
            fp_contract=self.fp_contract, device_entries=device_entries)

    def preprocessor_flags(self) -> list[str]:
        flags = []
        for d in self.include_dirs:
            flags += ["-I", d]
        flags += [f"-D{d}" for d in self.defines] + [f"-U{u}" for u in self.undefines]
        return flags
