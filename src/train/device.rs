//! The burn device a run trains on, by its config name.

use anyhow::bail;
use burn::prelude::*;

/// The burn device a config names (`cpu`, `wgpu` or `cuda`), without autodiff.
pub fn device(name: &str) -> anyhow::Result<Device> {
    match name {
        "cpu" => Ok(Device::flex()),
        #[cfg(feature = "wgpu")]
        "wgpu" => {
            // The adapter is acquired once per process (burn refuses to initialise its runtime
            // twice), so that a machine without one gets an error here, not a panic at the first
            // tensor; which one it is goes to stderr (a software one, e.g. llvmpipe, is slower
            // than the CPU backend). CUBECL_WGPU_DEFAULT_DEVICE (e.g. `DiscreteGpu(1)`) picks
            // another adapter.
            static WGPU: std::sync::OnceLock<Result<Device, String>> = std::sync::OnceLock::new();
            WGPU.get_or_init(|| {
                let (device, setup) = Device::wgpu_options()
                    .init_with_setup()
                    .map_err(|e| e.to_string())?;
                let a = setup.adapter.get_info();
                eprintln!(
                    "kalaha: wgpu adapter: {} ({:?}, {:?}; {} {})",
                    a.name, a.backend, a.device_type, a.driver, a.driver_info
                );
                Ok(device)
            })
            .clone()
            .map_err(|e| {
                anyhow::anyhow!(
                    "run.device = \"wgpu\": no usable GPU adapter ({e}); it needs a Vulkan \
                     loader and driver (libvulkan.so.1 and the GPU's, or Mesa's lavapipe on the \
                     CPU), or an OpenGL one"
                )
            })
        }
        #[cfg(not(feature = "wgpu"))]
        "wgpu" => bail!("run.device = \"wgpu\" needs kalaha built with the `wgpu` feature"),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        #[cfg(not(feature = "cuda"))]
        "cuda" => bail!("run.device = \"cuda\" needs kalaha built with the `cuda` feature"),
        other => bail!("run.device: unknown device '{other}' (expected cpu, wgpu or cuda)"),
    }
}
